--
-- A small stand-in for PostgreSQL's test_setup.sql: the same psql
-- variables and COPY FROM a data file.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set filename :abs_srcdir '/data/small.data'

CREATE TABLE small (id int4, name text);
COPY small FROM :'filename';
