"""psycopg2 against kvsql: PostgreSQL's types as a Python program meets
them. Run by session.TestPsycopg2 with the server's URL as argv[1]; any
failed check raises, and the script exits non-zero."""
import sys
import uuid
from decimal import Decimal

import psycopg2
import psycopg2.extras

psycopg2.extras.register_uuid()
conn = psycopg2.connect(sys.argv[1])
conn.autocommit = True
cur = conn.cursor()


def check(what, got, want):
    if got != want or type(got) is not type(want):
        raise AssertionError("%s: got %r (%s), want %r (%s)" % (what, got, type(got).__name__, want, type(want).__name__))


cur.execute("CREATE TABLE ledger (id INT PRIMARY KEY, amt NUMERIC(12,2), tags TEXT[], nums INT[], doc JSONB, u UUID)")

# NUMERIC: a Decimal parameter is stored exactly, rounded to the column's
# scale, and read back as a Decimal with the scale kept.
rows = [(i, Decimal("0.01") * i, ["a", "b c", str(i)], [i, -i], {"k": i, "nested": {"x": [1, 2]}}, uuid.UUID(int=i)) for i in range(1, 101)]
psycopg2.extras.execute_batch(cur, "INSERT INTO ledger VALUES (%s, %s, %s, %s, %s, %s)",
                              [(a, b, c, d, psycopg2.extras.Json(e), f) for a, b, c, d, e, f in rows])
cur.execute("SELECT sum(amt), avg(amt), %s::numeric + 0.2 FROM ledger", (Decimal("0.1"),))
s, a, p = cur.fetchone()
check("sum of 100 cents", s, Decimal("50.50"))
check("avg", a, Decimal("0.50500000000000000000"))
check("0.1 + 0.2", p, Decimal("0.3"))
cur.execute("SELECT amt FROM ledger WHERE id = %s", (7,))
check("numeric(12,2) scale", cur.fetchone()[0], Decimal("0.07"))
cur.execute("SELECT %s::numeric", (Decimal("12345678901234567890.123456789"),))
check("a wide Decimal round trip", cur.fetchone()[0], Decimal("12345678901234567890.123456789"))

# Arrays: Python lists in, lists out; = ANY(%s) is the idiomatic IN.
cur.execute("SELECT tags, nums FROM ledger WHERE id = %s", (3,))
t, n = cur.fetchone()
check("text[]", t, ["a", "b c", "3"])
check("int[]", n, [3, -3])
cur.execute("SELECT id FROM ledger WHERE id = ANY(%s) ORDER BY id", ([5, 1, 99, 1000],))
check("= ANY(list)", [r[0] for r in cur.fetchall()], [1, 5, 99])
cur.execute("SELECT count(*) FROM ledger WHERE %s = ANY(tags)", ("b c",))
check("elem = ANY(column)", cur.fetchone()[0], 100)
cur.execute("SELECT array_agg(id ORDER BY id DESC) FROM ledger WHERE id <= 3")
check("array_agg", cur.fetchone()[0], [3, 2, 1])
cur.execute("SELECT %s::text[]", (["x", None, 'q"uote'],))
check("list with None", cur.fetchone()[0], ["x", None, 'q"uote'])

# JSONB: dicts in (Json adapter), dicts out.
cur.execute("SELECT doc, doc->'nested'->'x'->>1 FROM ledger WHERE id = %s", (4,))
d, x = cur.fetchone()
check("jsonb as dict", d, {"k": 4, "nested": {"x": [1, 2]}})
check("->>", x, "2")

# UUID: uuid.UUID in and out.
cur.execute("SELECT u FROM ledger WHERE u = %s", (uuid.UUID(int=9),))
check("uuid", cur.fetchone()[0], uuid.UUID(int=9))

# Errors keep PostgreSQL's SQLSTATEs.
for sql, code in [("SELECT '{1,x}'::int[]", "22P02"), ("INSERT INTO ledger (id, amt) VALUES (1000, 12345678901.5)", "22003")]:
    try:
        cur.execute(sql)
    except psycopg2.Error as e:
        check(sql, e.pgcode, code)
    else:
        raise AssertionError("%s: no error, want %s" % (sql, code))
print("psycopg2: all checks passed")
