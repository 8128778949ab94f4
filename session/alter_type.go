package session

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

// alterType is ALTER TABLE t ALTER [COLUMN] c [SET DATA] TYPE type [USING
// expr]: every row's value is converted (the USING expression, or the
// column itself, by an assignment conversion: 42804 where PostgreSQL
// needs USING), then the table is rewritten under its new descriptor:
// each row's master record and index entries are deleted and written
// again, so keys over the column take the new type's encoding and unique
// indexes judge the new values (23505). A column that a foreign key, a
// view or a trigger depends on is refused.
func (s *Session) alterType(ctx context.Context, t *txn, a *parse.AlterColumnStmt) error {
	tbl, i, err := s.tableColumn(t, a.Table, a.Column)
	if err != nil {
		return err
	}
	var length, scale *int
	if len(a.TypeArgs) > 0 {
		length = &a.TypeArgs[0]
	}
	if len(a.TypeArgs) > 1 {
		scale = &a.TypeArgs[1]
	}
	to, dom, err := s.planner(t.cat).ResolveType(strings.ToLower(a.Type), length, scale)
	if err != nil {
		return err
	}
	if to.Family == types.Record || to.Elem == types.Record {
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot change column %q to type %s: changing a column to a composite type is not supported", a.Column, a.Type)
	}
	if tbl.Columns[i].Serial || tbl.Columns[i].IdentityAlways {
		if to.Kind() != types.KindInt {
			return pgerror.Newf(pgerror.FeatureNotSupported, "cannot change serial or identity column %q to type %s", a.Column, to)
		}
	}
	if err := s.typeChangeDependents(t, tbl, a.Column); err != nil {
		return err
	}
	conv, err := s.planner(t.cat).BindConversion(tbl, i, a.Using, to)
	if err != nil {
		return err
	}
	if old := tbl.Columns[i]; old.Default != "" && (to.Family == types.Enum || to.Elem == types.Enum) && !old.Type.Same(to) {
		// The default is a typed value of the old type, which converts
		// to an enum only explicitly (PostgreSQL checks it by assignment).
		return pgerror.Newf(pgerror.DatatypeMismatch, "default for column %q cannot be cast automatically to type %s", a.Column, to)
	}
	env := &eval.Env{Ctx: ctx, Now: time.Now(), Database: s.database}

	// Convert every row first: a failing value leaves nothing half done.
	// The rewrite shows in pg_stat_progress_cluster.
	prog := s.startRewrite(tbl, "ALTER TABLE", "seq scanning heap")
	defer prog.end()
	var olds, news [][]types.Datum
	it, err := index.ScanMaster(t.kv, tbl, index.Span{}, false)
	if err != nil {
		return err
	}
	for it.Next() {
		prog.rows("", int64(len(olds)), 0)
		old := append([]types.Datum(nil), it.Row()...)
		v, err := eval.Eval(env, conv, old)
		if err == nil {
			v, err = exec.AssignValue(v, to)
		}
		if err == nil && dom != nil {
			err = eval.CheckDomainValue(env, dom, v) // a domain's constraints hold for each value
		}
		if err != nil {
			it.Close()
			return err
		}
		nw := append([]types.Datum(nil), old...)
		nw[i] = v
		olds, news = append(olds, old), append(news, nw)
	}
	if err := it.Err(); err != nil {
		it.Close()
		return err
	}
	if err := it.Close(); err != nil {
		return err
	}

	next, err := t.cat.AlterTable(t.kv, s.database, a.Table, func(nt *catalog.Table) error {
		nt.Columns[i].Type = to
		nt.Columns[i].Domain = 0
		if dom != nil {
			nt.Columns[i].Domain = dom.OID
		}
		if dv := nt.Columns[i].DefaultValue; !dv.IsNull() {
			v, err := eval.CastFrom(dv, tbl.Columns[i].Type, to)
			if err == nil {
				v, err = exec.AssignValue(v, to)
			}
			if err != nil {
				return err
			}
			nt.Columns[i].DefaultValue = v
		}
		return nil
	})
	if err != nil {
		return err
	}
	ntbl, err := next.Table(s.database, a.Table)
	if err != nil {
		return err
	}
	scanned := int64(len(olds))
	prog.rows("writing new heap", scanned, 0)
	for _, old := range olds {
		if err := index.Delete(t.kv, tbl, old); err != nil {
			return err
		}
	}
	for i, nw := range news {
		if err := index.Insert(t.kv, ntbl, nw); err != nil {
			return err
		}
		prog.rows("", scanned, int64(i+1))
	}
	t.setCatalog(next)
	return nil
}

// typeChangeDependents refuses a type change of col that a foreign key
// (either way), a view or a trigger depends on.
func (s *Session) typeChangeDependents(t *txn, tbl *catalog.Table, col string) error {
	for _, idx := range tbl.Indexes {
		if indexReads(tbl, idx, col) {
			return pgerror.Newf(pgerror.FeatureNotSupported, "cannot alter type of column %q: index %s has an expression or predicate over it (drop the index first)", col, idx.Name)
		}
	}
	for _, fk := range tbl.ForeignKeys {
		if slicesContains(fk.Columns, col) {
			return pgerror.Newf(pgerror.FeatureNotSupported, "cannot alter type of column %q: foreign key %s uses it", col, fk.Name)
		}
	}
	tables, err := t.cat.Tables(s.database)
	if err != nil {
		return err
	}
	for _, other := range tables {
		for _, fk := range other.ForeignKeys {
			if fk.RefTable == tbl.Key() && slicesContains(fk.RefColumns, col) {
				return pgerror.Newf(pgerror.FeatureNotSupported, "cannot alter type of column %q: foreign key %s on table %s references it", col, fk.Name, other.Name)
			}
		}
	}
	if dep := s.textDependent(t, tbl.Name, col); dep != "" {
		e := pgerror.New(pgerror.FeatureNotSupported, "cannot alter type of a column used by a view or rule")
		e.Detail = fmt.Sprintf("%s depends on column %q", dep, col)
		return e
	}
	return nil
}
