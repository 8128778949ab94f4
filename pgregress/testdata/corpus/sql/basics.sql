-- Each rule of the scoring, once.
SELECT * FROM small;                      -- a multiset
SELECT * FROM small ORDER BY id DESC;     -- ordered
SELECT id FROM small LIMIT 2;             -- count only
SELECT name IS NULL, name = '' FROM small ORDER BY id;
SELECT 1 AS a \; SELECT 'x;y' AS "b;c";
SELECT 1/0;
SELECT now() > '2000-01-01';              -- not scored
EXPLAIN (COSTS OFF) SELECT * FROM small WHERE id = 1;

CREATE TEMP TABLE t (a int, b text);
COPY t FROM stdin;
1	a
2	\N
\.
COPY t (nosuch) FROM stdin;
SELECT count(*) FROM t;
COPY t FROM stdin;
3	x	extra
\.
\copy t TO stdout
COPY (SELECT * FROM t ORDER BY a) TO stdout WITH (FORMAT csv);

CREATE FUNCTION f(x int) RETURNS int LANGUAGE sql
BEGIN ATOMIC
  SELECT x + 1;
END;
SELECT f(41);
SELECT $$a;b$$, E'c\';d', /* ; /* ; */ */ 'e';
\d t
SELECT 'last statement without a semicolon'
