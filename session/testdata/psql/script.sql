-- The psql acceptance script: DDL, \copy, psql's describe commands and
-- queries. Its output must match script.out (go test -run TestPsql -rewrite).
CREATE TABLE accounts (id int PRIMARY KEY, owner varchar(20) NOT NULL, balance numeric DEFAULT 0, opened date, note text);
CREATE INDEX accounts_owner ON accounts (owner);
CREATE UNIQUE INDEX accounts_note ON accounts (note);
CREATE TABLE tags (account_id int NOT NULL, tag text, UNIQUE (account_id, tag));
CREATE VIEW rich AS SELECT id, owner FROM accounts WHERE balance > 100;
\copy accounts FROM 'accounts.csv' WITH (FORMAT csv, HEADER true)
\copy tags FROM 'tags.txt'
\dt
\d accounts
\d tags
\di
\dv
\d
\d rich
\d accounts_owner
\d+ accounts
\dt+
\di+ accounts_pkey
\dn
SELECT owner, count(*), sum(balance) FROM accounts GROUP BY owner ORDER BY owner;
SELECT a.id, a.owner, t.tag FROM accounts a JOIN tags t ON t.account_id = a.id WHERE a.id < 4 ORDER BY 1, 3;
SELECT * FROM rich ORDER BY id;
SELECT id, note FROM accounts WHERE note LIKE '%o%' ORDER BY id;
SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 'accounts' ORDER BY ordinal_position;
UPDATE accounts SET balance = balance + 1 WHERE owner = 'alice';
DELETE FROM tags WHERE tag IS NULL;
\copy (SELECT id, owner, balance FROM accounts ORDER BY id) TO STDOUT WITH CSV HEADER
SELECT count(*) AS tags_left FROM tags;
CREATE FUNCTION balance_of(account int) RETURNS numeric LANGUAGE sql STABLE AS $$ SELECT balance FROM accounts WHERE id = account $$;
\df
SELECT id, balance_of(id) FROM accounts WHERE id < 3 ORDER BY id;
CREATE SCHEMA ledger;
CREATE TABLE ledger.entries (id int PRIMARY KEY, account_id int REFERENCES accounts, amount numeric);
INSERT INTO ledger.entries VALUES (1, 1, 10.5);
\dn
\dt ledger.*
\d ledger.entries
SET search_path = ledger, public;
SELECT e.id, a.owner, e.amount FROM entries e JOIN accounts a ON a.id = e.account_id;
