// Package catalog holds kvsql's schema: databases, tables, columns, keys,
// indexes and views, and — the point of the package — how each table and
// index is laid out as keys and values. It persists itself in the store's
// meta key space and exports/imports itself as an XML or JSON document.
//
// There are only a few types:
//
//   - Catalog: an immutable snapshot of every descriptor. DDL methods
//     (CreateTable, CreateIndex, AddColumn, DropTable, ...) take a
//     kv.Writer, write the changed descriptors into it and return a NEW
//     Catalog; the caller installs it once the writer's batch commits, so
//     DDL is atomic with the data it touches (DropTable's DeleteRanges, an
//     index backfill) and a failed statement leaves the old catalog in
//     force.
//   - Table, Column, Index: a table is a master file (key space Table.ID:
//     key = primary key values, value = the other columns by column ID)
//     plus one index file per Index (key space Index.ID) in one of three
//     forms: FormUnique, FormKeyID, FormInverted. The index package reads
//     and writes them; docs/layout.md shows real keys.
//   - Database, View, Stats.
//
// # Data flow
//
// Open(engine) bootstraps a new store (format version, id counter, the
// default database "kvsql"), upgrades an old one and Loads the catalog.
// The executor looks tables up (Catalog.Table), runs DDL into the
// statement's batch and swaps in the returned Catalog after commit.
// NextSequence hands out serial values and hidden row ids in blocks.
// ExportXML/ExportJSON and ImportXML/ImportJSON + Install move a catalog
// through a document; the document alone tells how every key and value is
// built.
//
// # Caveats
//
//   - DDL must be serialized by the caller: key space ids are allocated
//     from the counter held in the Catalog, and two DDL statements run from
//     the same snapshot would hand out the same ids.
//   - NextSequence is a read-modify-write of one counter key; concurrent
//     writers must be serialized too.
//   - Column.DefaultValue is a constant computed by the caller from the
//     DEFAULT expression; the catalog parses no SQL. Non-constant defaults
//     (now()) are not substituted for rows written before ADD COLUMN.
//   - Foreign keys are recorded, not enforced. Stats are not part of the
//     exported document.
//   - Names are case-sensitive as stored; the parser case-folds.
package catalog
