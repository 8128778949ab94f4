package session

import (
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
)

// checkDDL checks a DDL statement's privileges for a current user who is
// no superuser, before it runs: changing or dropping a relation needs
// its ownership (42501 must be owner of table t), TRUNCATE the TRUNCATE
// privilege, creating a relation CREATE on its schema. Names that
// resolve to nothing are left for the statement to report.
func (s *Session) checkDDL(t *txn, p *parse.Statement) error {
	cat := t.cat
	me := s.currentRole()
	if s.isSuperuser(cat, me) {
		return nil
	}
	pl := s.planner(cat)
	owns := func(ref string) error {
		_, schema, name := planner.SplitRef(ref)
		key, err := pl.DDLLookupKey(schema, name)
		if err != nil {
			return nil
		}
		kind, owner := "", uint64(0)
		if tb, err := cat.Table(s.database, key); err == nil {
			kind, owner = "table", tb.Owner
			if tb.MatView != "" {
				kind = "materialized view"
			}
		} else if v, err := cat.View(s.database, key); err == nil {
			kind, owner = "view", v.Owner
		} else if sq, err := cat.Sequence(s.database, key); err == nil {
			kind, owner = "sequence", sq.Owner
		} else {
			return nil
		}
		if !s.memberOf(cat, me, s.roleNameByID(cat, catalog.OwnerID(owner)), true) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of %s %s", kind, catalog.DisplayName(key))
		}
		return nil
	}
	tableRef := func(tn sqlparser.TableName) string {
		if tn.Qualifier.IsEmpty() {
			return tn.Name.String()
		}
		return parse.QualifiedRef([]string{tn.Qualifier.String(), tn.Name.String()})
	}
	var refs []string
	switch {
	case p.Truncate != nil:
		for _, ref := range p.Truncate.Tables {
			_, schema, name := planner.SplitRef(ref)
			key, err := pl.DDLLookupKey(schema, name)
			if err != nil {
				continue
			}
			if tb, err := cat.Table(s.database, key); err == nil && !s.hasPrivilege(cat, me, catalog.OwnerID(tb.Owner), tb.ACL, "table", 'D') {
				return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for table %s", catalog.DisplayName(key))
			}
		}
		return nil
	case p.AlterColumn != nil:
		refs = []string{p.AlterColumn.Table}
	case p.DropConstraint != nil:
		refs = []string{p.DropConstraint.Table}
	case p.AddIdentity != nil:
		refs = []string{p.AddIdentity.Table}
	case p.SetSchema != nil:
		refs = []string{p.SetSchema.Table}
	case p.Sequence != nil && p.Sequence.Op != "create":
		refs = p.Sequence.Names
	case p.Sequence != nil:
		return s.checkCreateIn(cat, p.Sequence.Names[0])
	}
	switch ast := p.AST.(type) {
	case *sqlparser.DropTable:
		for _, tn := range ast.FromTables {
			refs = append(refs, tableRef(tn))
		}
	case *sqlparser.DropView:
		for _, tn := range ast.FromTables {
			refs = append(refs, tableRef(tn))
		}
	case *sqlparser.AlterTable:
		refs = append(refs, tableRef(ast.Table))
	case *sqlparser.RenameTable:
		for _, pair := range ast.TablePairs {
			refs = append(refs, tableRef(pair.FromTable))
		}
	case *sqlparser.CreateTable:
		return s.checkCreateIn(cat, tableRef(ast.Table))
	case *sqlparser.CreateView:
		return s.checkCreateIn(cat, tableRef(ast.ViewName))
	}
	for _, ref := range refs {
		if err := owns(ref); err != nil {
			return err
		}
	}
	return nil
}

// checkCreateIn checks CREATE on the schema a new relation named ref
// goes to: its qualifier, else the first schema of the search path that
// exists (temporary relations aside).
func (s *Session) checkCreateIn(cat *catalog.Catalog, ref string) error {
	_, schema, _ := planner.SplitRef(ref)
	if schema == "" {
		for _, name := range s.searchPath() {
			if sc, err := cat.Schema(s.database, name); err == nil && !sc.Temp {
				schema = name
				break
			}
		}
	}
	sc, err := cat.Schema(s.database, schema)
	if err != nil || sc.Temp {
		return nil
	}
	owner, acl := cat.SchemaOwnerACL(sc)
	if !s.hasPrivilege(cat, s.currentRole(), owner, acl, "schema", 'C') {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for schema %s", sc.Name)
	}
	return nil
}
