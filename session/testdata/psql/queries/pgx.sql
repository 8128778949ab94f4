-- pgx v5.12.0: the catalog queries it sends. It sends none on connect and
-- none for the builtin types (their OIDs and codecs are compiled in); only
-- Conn.LoadType(ctx, name) asks the server, for a derived type (an array,
-- domain, enum, composite or range of types it knows):
select $1::text::regtype::oid;

select typtype::text, typbasetype from pg_type where oid=$1;

-- for typtype 'b' (an array type):
select typelem, typdelim::text from pg_type where oid=$1;

-- for typtype 'c' (a composite type):
select typrelid from pg_type where oid=$1;
