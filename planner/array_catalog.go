package planner

import (
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Arrays in the virtual catalogs: the integer vectors of pg_index and
// pg_constraint that kvsql keeps as text, their subscripts and bounds.

// catalogVectorElem are the virtual catalog columns of integer arrays and
// vectors, by name, with their element types.
var catalogVectorElem = map[string]types.T{
	"indkey": tInt2, "indoption": tInt2, "conkey": tInt2, "confkey": tInt2, "stxkeys": tInt2,
	"indclass": tInt8, "indcollation": tInt8, "proargtypes": tInt8, "conpfeqop": tInt8,
	"conppeqop": tInt8, "conffeqop": tInt8, "conexclop": tInt8,
}

// catalogVector returns x read as an array of integers when it is a
// column of a virtual catalog that PostgreSQL types int2vector,
// oidvector, int2[] or oid[] (text here), as clients' joins on
// unnest(ix.indkey) or a.attnum = ANY(ix.indkey) expect; any other x is
// returned unchanged.
func catalogVector(x Expr) Expr {
	switch x.Type().Family {
	case types.Int2Vector:
		return &Func{Name: CatalogVectorFunc, Args: []Expr{x}, T: types.ArrayOf(tInt2)}
	case types.OidVector:
		return &Func{Name: CatalogVectorFunc, Args: []Expr{x}, T: types.ArrayOf(tInt8)} // oid is bigint here
	}
	if et, vec := catalogVectorColumn(x); vec {
		return &Func{Name: CatalogVectorFunc, Args: []Expr{x}, T: types.ArrayOf(et)}
	}
	return x
}

// catalogVectorColumn reports whether x is a text column that stands for
// one of catalogVectorElem's columns (by its name, or an alias ending in
// it, as pgjdbc's i.indoption AS i_indoption), and its element type.
func catalogVectorColumn(x Expr) (types.T, bool) {
	ref, isRef := x.(*ColRef)
	if !isRef || !isText(x.Type().Family) {
		return types.T{}, false
	}
	name := ref.Name[strings.LastIndex(ref.Name, ".")+1:]
	for col, et := range catalogVectorElem {
		if name == col || strings.HasSuffix(name, "_"+col) {
			return et, true
		}
	}
	return types.T{}, false
}

// lowerBoundFunc is srfSelect's name for an array's lower bound, bound
// by lowerBound.
const lowerBoundFunc = "kvsql_lower_bound"

// lowerBound binds kvsql_lower_bound(a): 0 for a catalog column
// PostgreSQL types int2vector or oidvector, 1 for any other array.
func lowerBound(args []Expr) Expr {
	if len(args) == 1 {
		if ref, isRef := args[0].(*ColRef); isRef && isText(ref.T.Family) {
			name := ref.Name[strings.LastIndex(ref.Name, ".")+1:]
			for _, col := range []string{"indkey", "indoption", "indclass", "indcollation", "proargtypes"} {
				if name == col || strings.HasSuffix(name, "_"+col) {
					return &Const{Value: types.NewInt(0), T: tInt8}
				}
			}
		}
	}
	return &Const{Value: types.NewInt(1), T: tInt8}
}

// catalogSubscript binds v[i] over a catalog vector column (see
// catalogVectorColumn): the element as an integer, counting from 0 for
// a vector ("1 2", PostgreSQL's int2vector and oidvector) and from 1 for
// an array ("{1,2}"). ok is false for any other subscript.
func catalogSubscript(args []Expr) (Expr, bool, error) {
	if len(args) != 2 {
		return nil, false, nil
	}
	et, vec := catalogVectorColumn(args[0])
	if !vec {
		return nil, false, nil
	}
	i, err := coerce(args[1], tInt4)
	if err == nil && !isInteger(i.Type().Family) {
		err = pgerror.Newf(pgerror.DatatypeMismatch, "array subscript must have type integer")
	}
	if err != nil {
		return nil, true, err
	}
	return &Func{Name: CatalogVectorFunc, Args: []Expr{args[0], i}, T: et}, true, nil
}
