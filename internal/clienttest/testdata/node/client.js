// node-postgres (npm pg, pinned in package.json) against one server: a
// pool, parameters, transactions committed and rolled back, and the
// fields of an error. It prints what it sees, one line per fact, so a
// test can compare kvsql's output with PostgreSQL 15's, and checks the
// values it knows.
'use strict';
const assert = require('assert');
const { Pool } = require('pg');

async function main() {
  const pool = new Pool({ connectionString: process.argv[2], max: 3 });
  const q = (text, params) => pool.query(text, params);
  await q('CREATE TABLE np_acct (id serial PRIMARY KEY, owner text NOT NULL, balance numeric(10,2) NOT NULL DEFAULT 0, opened date, tags text[], CONSTRAINT np_acct_owner_key UNIQUE (owner))');
  let r = await q('INSERT INTO np_acct (owner, balance, opened, tags) VALUES ($1, $2, $3, $4), ($5, $6, $7, $8) RETURNING id, owner',
    ['ann', '100.50', '2024-02-29', ['a', 'b'], 'bob', 20, null, []]);
  console.log('inserted', r.rowCount, JSON.stringify(r.rows));
  assert.strictEqual(r.rowCount, 2);
  r = await q('SELECT id, owner, balance, opened::text AS opened, tags, balance > $1 AS rich FROM np_acct ORDER BY id', [50]);
  console.log('fields', r.fields.map((f) => f.name + ':' + f.dataTypeID).join(' '));
  for (const row of r.rows) console.log('row', JSON.stringify(row));
  assert.deepStrictEqual(r.rows[0].tags, ['a', 'b']);
  assert.strictEqual(r.rows[0].rich, true);
  assert.strictEqual(r.rows[1].balance, '20.00');

  // Transactions on one client of the pool: a commit and a rollback.
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    await c.query('UPDATE np_acct SET balance = balance - $1 WHERE owner = $2', [30, 'ann']);
    await c.query('UPDATE np_acct SET balance = balance + $1 WHERE owner = $2', [30, 'bob']);
    await c.query('COMMIT');
    await c.query('BEGIN');
    await c.query('DELETE FROM np_acct');
    r = await c.query('SELECT count(*)::int AS n FROM np_acct');
    console.log('inside rollback', r.rows[0].n);
    await c.query('ROLLBACK');
  } finally {
    c.release();
  }
  r = await q('SELECT owner, balance FROM np_acct ORDER BY owner');
  console.log('after', JSON.stringify(r.rows));
  assert.deepStrictEqual(r.rows, [{ owner: 'ann', balance: '70.50' }, { owner: 'bob', balance: '50.00' }]);

  // Several queries at once over the pool's connections.
  const many = await Promise.all([1, 2, 3, 4, 5].map((i) => q('SELECT $1::int * 2 AS d', [i])));
  console.log('parallel', many.map((x) => x.rows[0].d).join(','));

  // An error's fields.
  try {
    await q('INSERT INTO np_acct (owner) VALUES ($1)', ['ann']);
    assert.fail('a duplicate owner was accepted');
  } catch (e) {
    console.log('error', e.code, e.severity, e.table, e.constraint, e.schema, e.detail, e.message);
    assert.strictEqual(e.code, '23505');
    assert.strictEqual(e.constraint, 'np_acct_owner_key');
  }
  try {
    await q('INSERT INTO np_acct (owner, balance) VALUES (NULL, 1)');
    assert.fail('a NULL owner was accepted');
  } catch (e) {
    console.log('error', e.code, e.table, e.column, e.message);
    assert.strictEqual(e.code, '23502');
  }
  try {
    await q('SELECT nosuch FROM np_acct');
  } catch (e) {
    // e.position is left out: kvsql reports positions for syntax
    // errors only, PostgreSQL also for unknown columns.
    console.log('error', e.code, e.message);
    assert.strictEqual(e.code, '42703');
  }
  // The pool still works after errors.
  r = await q('SELECT count(*)::int AS n FROM np_acct');
  console.log('count', r.rows[0].n);
  await pool.end();
  console.log('all checks passed');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
