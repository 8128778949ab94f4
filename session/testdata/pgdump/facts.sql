-- What TestPgDump compares between two restored databases: columns,
-- indexes, constraints, sequences, views, comments, every table's rows,
-- and what the sequences hand out next. Serial defaults read "nextval":
-- PostgreSQL keeps an identity column's sequence apart from its default,
-- kvsql (whose BY DEFAULT identity columns are serial) does not.
SELECT table_name, column_name, data_type, character_maximum_length, numeric_precision, numeric_scale, is_nullable, CASE WHEN column_default LIKE 'nextval%' THEN 'nextval' ELSE column_default END FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position;
SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname;
SELECT conname, contype FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY conname;
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND contype <> 'c' ORDER BY conname;
SELECT sequencename, start_value, increment_by, last_value FROM pg_sequences ORDER BY sequencename;
SELECT viewname FROM pg_views WHERE schemaname = 'public' ORDER BY viewname;
SELECT obj_description('books'::regclass, 'pg_class'), col_description('books'::regclass, 3);
SELECT * FROM authors ORDER BY id;
SELECT * FROM books ORDER BY id;
SELECT * FROM events ORDER BY id;
SELECT * FROM "Mixed Case" ORDER BY "Key";
SELECT * FROM plain ORDER BY a;
SELECT * FROM cheap_books ORDER BY id;
SELECT * FROM author_names ORDER BY id;
SELECT nextval('counter');
INSERT INTO authors (name) VALUES ('New') RETURNING id;
INSERT INTO books (title) VALUES ('New') RETURNING id;
INSERT INTO events (book_id, at) VALUES (2, '2025-01-01') RETURNING id;
SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema = 'shop' ORDER BY table_name;
SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'shop' ORDER BY indexname;
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'shop'::regnamespace ORDER BY conname;
SELECT * FROM shop.orders ORDER BY id;
INSERT INTO shop.orders (qty) VALUES (9) RETURNING id;
SELECT enumlabel FROM pg_enum WHERE enumtypid = 'mood'::regtype ORDER BY enumsortorder;
SELECT id, m, ms FROM feelings ORDER BY m;
SELECT id FROM feelings WHERE m < 'happy' ORDER BY m DESC;
SELECT c.relname, pg_get_userbyid(c.relowner), array_to_string(c.relacl, ' ') FROM pg_class c WHERE c.relnamespace IN ('public'::regnamespace, 'shop'::regnamespace) AND c.relkind IN ('r', 'v', 'm') ORDER BY 1;
SELECT c.relname, array_to_string(c.relacl, ' ') FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'S' ORDER BY 1;
SELECT nspname, pg_get_userbyid(nspowner), array_to_string(nspacl, ' ') FROM pg_namespace WHERE nspname IN ('public', 'shop') ORDER BY 1;
SELECT t.typname, format_type(t.typbasetype, t.typtypmod), t.typnotnull, c.conname, c.convalidated FROM pg_type t LEFT JOIN pg_constraint c ON c.contypid = t.oid WHERE t.typtype = 'd' AND t.typnamespace = 'public'::regnamespace ORDER BY 1, 4;
SELECT * FROM contacts ORDER BY id;
INSERT INTO contacts (id) VALUES (3) RETURNING mail, credit;
SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_type t JOIN pg_attribute a ON a.attrelid = t.typrelid WHERE t.typname = 'address' ORDER BY a.attnum;
SELECT id, addr, old, (addr).zip FROM sites ORDER BY id;
SELECT conname, obj_description(oid, 'pg_constraint') FROM pg_constraint WHERE contypid = 'email'::regtype;
SELECT tablename, indexname, indexdef FROM pg_indexes WHERE tablename LIKE 'readings%' ORDER BY 1, 2;
SELECT * FROM readings ORDER BY id;
INSERT INTO readings VALUES (3, 5, 'c') RETURNING *, tableoid::regclass;
