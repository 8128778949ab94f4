package session

import (
	"slices"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
)

// comment is COMMENT ON: the text is kept in the object's catalog entry
// (pg_description, obj_description and col_description read it, and so
// psql's \d+ and pg_dump); IS NULL removes it.
func (s *Session) comment(t *txn, c *parse.CommentStmt) error {
	text := ""
	if c.Text != nil {
		text = *c.Text
	}
	var next *catalog.Catalog
	var err error
	switch c.Kind {
	case "function", "procedure":
		return s.commentRoutine(t, *c.Routine, c.Kind == "procedure", text)
	case "table", "column":
		col := -1
		if c.Kind == "column" {
			if _, col, err = s.tableColumn(t, c.Name, c.Column); err != nil {
				return err
			}
		} else if _, err = t.cat.Table(s.database, c.Name); err != nil {
			return err
		}
		next, err = t.cat.AlterTable(t.kv, s.database, c.Name, func(nt *catalog.Table) error {
			if col >= 0 {
				nt.Columns[col].Comment = text
			} else {
				nt.Comment = text
			}
			return nil
		})
	case "index":
		tbl, idx, ierr := t.cat.Index(s.database, c.Name)
		if ierr != nil {
			return ierr
		}
		next, err = t.cat.AlterTable(t.kv, s.database, tbl.Key(), func(nt *catalog.Table) error {
			for i, x := range nt.Indexes {
				if x.Name == idx.Name {
					cp := *x
					cp.Comment = text
					nt.Indexes[i] = &cp
				}
			}
			return nil
		})
	case "constraint":
		tbl, terr := t.cat.Table(s.database, c.Name)
		if terr != nil {
			return terr
		}
		if !tbl.HasConstraint(c.Column) {
			return pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", c.Column, c.Name)
		}
		next, err = t.cat.AlterTable(t.kv, s.database, c.Name, func(nt *catalog.Table) error {
			m := make(map[string]string, len(nt.ConstraintComments)+1)
			for k, v := range nt.ConstraintComments {
				m[k] = v
			}
			if text == "" {
				delete(m, c.Column)
			} else {
				m[c.Column] = text
			}
			nt.ConstraintComments = m
			return nil
		})
	case "domain constraint":
		u, uerr := s.lookupType(t, c.Name) // usertype.go
		if uerr != nil {
			return uerr
		}
		if u == nil || u.Kind != "d" {
			_, _, name := planner.SplitRef(c.Name)
			return pgerror.Newf(pgerror.UndefinedObject, "type \"%s\" does not exist", name)
		}
		i := slices.IndexFunc(u.Checks, func(ck catalog.Check) bool { return ck.Name == c.Column })
		if i < 0 {
			return pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" for domain %s does not exist", c.Column, u.Name)
		}
		nu := *u
		nu.Checks = slices.Clone(u.Checks)
		nu.Checks[i].Comment = text
		next, err = t.cat.ReplaceUserType(t.kv, s.database, nu)
	case "view":
		next, err = t.cat.SetViewComment(t.kv, s.database, c.Name, text)
	case "schema":
		next, err = t.cat.SetSchemaComment(t.kv, s.database, c.Name, text)
	case "sequence":
		seq, serr := t.cat.Sequence(s.database, c.Name)
		if serr != nil {
			return serr
		}
		ns := *seq
		ns.Comment = text
		next, err = t.cat.AlterSequence(t.kv, s.database, ns)
	default:
		return pgerror.Newf(pgerror.FeatureNotSupported, "COMMENT ON %s is not supported", c.Kind)
	}
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}
