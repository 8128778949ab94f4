package session

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

// ALTER TABLE ... ATTACH PARTITION and DETACH PARTITION: a table joins a
// partitioned table once its columns match and its rows (and the default
// partition's) fit the bound; it leaves once no foreign key still needs
// it there.

// attachPartition runs ALTER TABLE parent ATTACH PARTITION name bound
// (its columns must be the parent's, and every row it holds must fall in
// the bound) and DETACH PARTITION name.
func (s *Session) attachPartition(ctx context.Context, t *txn, as *parse.AttachStmt) error {
	parent, err := t.cat.Table(s.database, as.Parent)
	if err != nil {
		return err
	}
	part, err := t.cat.Table(s.database, as.Partition)
	if err != nil {
		return err
	}
	if as.Inheritance {
		return s.alterInherit(t, parent, part, as.Detach)
	}
	if !parent.Partitioned() {
		return pgerror.Newf(pgerror.WrongObjectType, "table %q is not partitioned", as.Parent)
	}
	if as.Detach {
		if part.PartitionOf != parent.Key() {
			return pgerror.Newf(pgerror.UndefinedTable, "relation %q is not a partition of relation %q", as.Partition, as.Parent)
		}
		if err := s.detachReferenced(ctx, t, part); err != nil {
			return err
		}
		next, err := t.cat.AlterTable(t.kv, s.database, part.Key(), func(nt *catalog.Table) error {
			nt.PartitionOf, nt.Bound = "", nil
			return nil
		})
		if err == nil {
			t.setCatalog(next)
		}
		return err
	}
	if part.PartitionOf != "" {
		return pgerror.Newf(pgerror.WrongObjectType, "%q is already a partition", as.Partition)
	}
	if len(part.Inherits) > 0 {
		return pgerror.Newf(pgerror.WrongObjectType, "cannot attach inheritance child as partition")
	}
	if err := partitionColumnsMatch(parent, part); err != nil {
		return err
	}
	bound, err := s.partitionBound(ctx, t, parent, part.Name, as.Bound)
	if err != nil {
		return err
	}
	if err := s.validateBound(ctx, t, parent, part.Key(), bound, nil); err != nil {
		return pgerror.Newf(pgerror.CheckViolation, "partition constraint of relation %q is violated by some row", part.Name)
	}
	if err := s.checkDefaultRows(ctx, t, parent, bound); err != nil {
		return err
	}
	if err := s.conformPartition(ctx, t, parent, part); err != nil {
		return err
	}
	next, err := t.cat.AlterTable(t.kv, s.database, part.Key(), func(nt *catalog.Table) error {
		nt.PartitionOf, nt.Bound = parent.Key(), bound
		return nil
	})
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// partitionColumnsMatch refuses a table to attach whose columns differ from the
// partitioned table's (42804).
func partitionColumnsMatch(parent, part *catalog.Table) error {
	for _, c := range part.Columns {
		if c.Hidden {
			continue
		}
		o := parent.ColumnOrdinal(c.Name)
		if o < 0 {
			e := pgerror.Newf(pgerror.DatatypeMismatch, "table %q contains column %q not found in parent %q", part.Name, c.Name, parent.Name)
			e.Detail = "The new partition may contain only the columns present in parent."
			return e
		}
		if !parent.Columns[o].Type.Same(c.Type) || parent.Columns[o].Domain != c.Domain {
			return pgerror.Newf(pgerror.DatatypeMismatch, "child table %q has different type for column %q", part.Name, c.Name)
		}
	}
	for _, c := range parent.Columns {
		if !c.Hidden && part.ColumnOrdinal(c.Name) < 0 {
			return pgerror.Newf(pgerror.DatatypeMismatch, "child table is missing column %q", c.Name)
		}
	}
	return nil
}

// validateBound fails when some row of the table whose key is key (and its partitions)
// has a partition key outside bound (others: the siblings' bounds, for a
// default partition).
func (s *Session) validateBound(ctx context.Context, t *txn, parent *catalog.Table, key string, bound *catalog.PartitionBound, others []*catalog.PartitionBound) error {
	rows, err := s.queryRows(ctx, t, "SELECT "+strings.Join(parent.PartitionBy.Keys, ", ")+" FROM "+keySQL(key))
	if err != nil {
		return err
	}
	for _, key := range rows {
		if !exec.BoundAdmits(bound, others, key, parent.PartitionBy.KeyTypes) {
			return pgerror.New(pgerror.CheckViolation, "row outside the partition bound")
		}
	}
	return nil
}

// checkDefaultRows refuses a new partition that would take rows the
// parent's default partition holds (23514).
func (s *Session) checkDefaultRows(ctx context.Context, t *txn, parent *catalog.Table, bound *catalog.PartitionBound) error {
	if bound.Default {
		return nil
	}
	for _, ch := range t.cat.Children(s.database, parent.Key()) {
		if ch.Bound == nil || !ch.Bound.Default {
			continue
		}
		if err := s.validateBound(ctx, t, parent, ch.Key(), ch.Bound, []*catalog.PartitionBound{bound}); err != nil {
			return pgerror.Newf(pgerror.CheckViolation, "updated partition constraint for default partition %q would be violated by some row", ch.Name)
		}
	}
	return nil
}

// queryRows runs a query in t and returns its rows.
func (s *Session) queryRows(ctx context.Context, t *txn, q string) ([][]types.Datum, error) {
	st, err := parse.ParseOne(q)
	if err != nil {
		return nil, err
	}
	plan, _, err := s.planner(t.cat).Plan(&st, nil)
	if err != nil {
		return nil, err
	}
	op, err := exec.Build(s.execCtx(ctx, t, nil), plan)
	if err != nil {
		return nil, err
	}
	defer op.Close()
	var out [][]types.Datum
	for {
		row, err := op.Next()
		if err != nil || row == nil {
			return out, err
		}
		out = append(out, append([]types.Datum(nil), row...))
	}
}

// detachReferenced refuses to detach partition part while a row of
// another table references, through a foreign key to part's partitioned
// table (or one above it), a row part holds (23503).
func (s *Session) detachReferenced(ctx context.Context, t *txn, part *catalog.Table) error {
	above := map[string]*catalog.Table{}
	for p := part; p.PartitionOf != ""; {
		parent, err := t.cat.Table(s.database, p.PartitionOf)
		if err != nil {
			break
		}
		above[parent.Key()] = parent
		p = parent
	}
	tables, err := t.cat.Tables(s.database)
	if err != nil {
		return err
	}
	for _, child := range tables {
		for _, fk := range child.ForeignKeys {
			ref := above[fk.RefTable]
			if ref == nil {
				continue
			}
			refCols := fk.RefColumns
			if len(refCols) == 0 {
				for _, o := range ref.PrimaryKey {
					refCols = append(refCols, ref.Columns[o].Name)
				}
			}
			var on, cols []string
			for i, c := range fk.Columns {
				on = append(on, "p."+quoteIdent(refCols[i])+" = c."+quoteIdent(c))
				cols = append(cols, "c."+quoteIdent(c))
			}
			rows, err := s.queryRows(ctx, t, "SELECT "+strings.Join(cols, ", ")+" FROM "+keySQL(child.Key())+" c JOIN "+
				keySQL(part.Key())+" p ON "+strings.Join(on, " AND ")+" LIMIT 1")
			if err != nil {
				return err
			}
			if len(rows) == 0 {
				continue
			}
			vals := make([]string, len(rows[0]))
			for i, d := range rows[0] {
				vals[i] = eval.FormatText(d, child.Columns[child.ColumnOrdinal(fk.Columns[i])].Type)
			}
			e := pgerror.Newf(pgerror.ForeignKeyViolation, "removing partition %q violates foreign key constraint %q", part.Name, catalog.ForeignKeyName(child, fk))
			e.Detail = fmt.Sprintf("Key (%s)=(%s) is still referenced from table %q.", strings.Join(fk.Columns, ", "), strings.Join(vals, ", "), child.Name)
			return e
		}
	}
	return nil
}

// attachIndex runs ALTER INDEX parent ATTACH PARTITION child, which
// pg_dump writes once it has made a partitioned table's index ON ONLY
// the parent and an index on each partition. kvsql keeps no link
// between the two (a partition's index is its own, and the parent's
// answers through the partitions), so the statement checks what
// PostgreSQL checks — child indexes a partition of parent's table, over
// the same columns, unique alike — and changes nothing.
func (s *Session) attachIndex(t *txn, a *parse.AttachIndexStmt) error {
	parent, pcols, punique, err := indexColumns(t.cat, s.database, a.Parent)
	if err != nil {
		return err
	}
	child, ccols, cunique, err := indexColumns(t.cat, s.database, a.Child)
	if err != nil {
		return err
	}
	_, _, pname := planner.SplitRef(a.Parent)
	_, _, cname := planner.SplitRef(a.Child)
	if parent.PartitionBy == nil {
		e := pgerror.Newf(pgerror.WrongObjectType, "ALTER action ATTACH PARTITION cannot be performed on relation %q", pname)
		e.Detail = "This operation is not supported for indexes."
		return e
	}
	if child.PartitionOf != parent.Key() {
		e := pgerror.Newf(pgerror.InvalidObjectDefinition, "cannot attach index %q as a partition of index %q", cname, pname)
		e.Detail = fmt.Sprintf("Index %q is not an index on any partition of table %q.", cname, parent.Name)
		return e
	}
	if !slices.Equal(pcols, ccols) || punique != cunique {
		e := pgerror.Newf(pgerror.InvalidObjectDefinition, "cannot attach index %q as a partition of index %q", cname, pname)
		e.Detail = "The index definitions do not match."
		return e
	}
	return nil
}

// indexColumns finds the index key names: a table's primary key (by its
// constraint name) or one of its indexes. It returns the table, the
// indexed columns' names and whether the index is unique.
func indexColumns(cat *catalog.Catalog, db, key string) (*catalog.Table, []string, bool, error) {
	if t, idx, err := cat.Index(db, key); err == nil {
		cols := make([]string, len(idx.Columns))
		for i, o := range idx.Columns {
			cols[i] = t.Columns[o].Name
		}
		return t, cols, idx.Unique, nil
	}
	schema, bare := catalog.SplitRelKey(key)
	tables, err := cat.Tables(db)
	if err != nil {
		return nil, nil, false, err
	}
	for _, t := range tables {
		if catalog.SchemaName(t.Schema) == schema && !t.HiddenRowID && t.PrimaryKeyName == bare {
			cols := make([]string, len(t.PrimaryKey))
			for i, o := range t.PrimaryKey {
				cols[i] = t.Columns[o].Name
			}
			return t, cols, true, nil
		}
	}
	return nil, nil, false, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", bare)
}
