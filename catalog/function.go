package catalog

import (
	"encoding/json"
	"errors"
	"sort"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Function is a user-defined routine (CREATE FUNCTION or CREATE
// PROCEDURE, LANGUAGE sql): its signature, options and body text, as
// pg_proc shows them. Its descriptor is a meta key /1/"function"/db/id,
// written by DDL in the statement's transaction like a view's. Functions
// of one name are told apart by their argument types (overloading), so
// the key holds the ID, not the name.
type Function struct {
	// ID is allocated from the key space counter and is the function's
	// OID; the function owns no key space.
	ID   uint64        `json:"id"`
	Name string        `json:"name"`
	Kind string        `json:"kind"` // "f" function, "p" procedure, "a" aggregate (pg_proc.prokind)
	Args []FunctionArg `json:"args,omitempty"`
	// Returns is the return type's name ("integer", "text[]",
	// "anyelement", "record", "void"); RetSet marks SETOF (and RETURNS
	// TABLE, whose columns are the OUT arguments). Empty for a procedure.
	Returns string `json:"returns,omitempty"`
	RetSet  bool   `json:"retset,omitempty"`
	// Language is "sql". Body is the definition text: prosrc for an AS
	// body, or the SQL-standard body (RETURN's expression, BEGIN ATOMIC's
	// statements) with Form saying which ("as", "return" or "atomic").
	Language string `json:"language"`
	Body     string `json:"body"`
	Form     string `json:"form"`
	// Volatility is provolatile: "i", "s" or "v".
	Volatility string `json:"volatility"`
	Strict     bool   `json:"strict,omitempty"`
	Leakproof  bool   `json:"leakproof,omitempty"`
	Definer    bool   `json:"definer,omitempty"` // SECURITY DEFINER
	// Parallel is proparallel: "s", "r" or "u".
	Parallel string   `json:"parallel"`
	Cost     float64  `json:"cost"`
	Rows     float64  `json:"rows"`
	Config   []string `json:"config,omitempty"` // SET name=value items (proconfig)
	Owner    string   `json:"owner,omitempty"`
	Comment  string   `json:"comment,omitempty"` // COMMENT ON FUNCTION's text
	// Agg is set on an aggregate (CREATE AGGREGATE; Kind "a"): Args are
	// its inputs, Returns its result type.
	Agg *Aggregate `json:"agg,omitempty"`
}

// Aggregate is how a user-defined aggregate computes (pg_aggregate): a
// state of type SType, starting at InitCond (NULL when nil), that SFunc
// moves on with each input row, and FinalFunc turns into the result (the
// state itself when empty). The functions are named, built-in or the
// user's, and resolved by argument types where the aggregate is used.
type Aggregate struct {
	SFunc     string  `json:"sfunc"`
	SType     string  `json:"stype"`
	FinalFunc string  `json:"finalfunc,omitempty"`
	InitCond  *string `json:"initcond,omitempty"`
}

// FunctionArg is one argument of a Function.
type FunctionArg struct {
	Name    string `json:"name,omitempty"`
	Mode    string `json:"mode"` // "i" IN, "o" OUT, "b" INOUT, "v" VARIADIC, "t" a RETURNS TABLE column (proargmodes)
	Type    string `json:"type"`
	Default string `json:"default,omitempty"` // DEFAULT's expression text
}

// InputArgs returns the arguments a call passes: IN, INOUT and VARIADIC.
func (f *Function) InputArgs() []FunctionArg {
	var in []FunctionArg
	for _, a := range f.Args {
		if a.Mode != "o" && a.Mode != "t" {
			in = append(in, a)
		}
	}
	return in
}

// OutputArgs returns the OUT, INOUT and RETURNS TABLE arguments: the
// result's columns when there are any.
func (f *Function) OutputArgs() []FunctionArg {
	var out []FunctionArg
	for _, a := range f.Args {
		if a.Mode == "o" || a.Mode == "b" || a.Mode == "t" {
			out = append(out, a)
		}
	}
	return out
}

const tagFunction = "function" // /1/"function"/db/id → JSON Function descriptor

// FunctionKey is the descriptor key of function id of db.
func FunctionKey(db string, id uint64) []byte {
	return metaKey(text(tagFunction), text(db), types.NewInt(int64(id)))
}

// Functions returns the functions and procedures of db ordered by name,
// then ID; 3D000 if db does not exist.
func (c *Catalog) Functions(db string) ([]*Function, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	out := make([]*Function, 0, len(d.Functions))
	for _, f := range d.Functions {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// FunctionsNamed returns db's routines called name, ordered by ID.
func (c *Catalog) FunctionsNamed(db, name string) []*Function {
	d, ok := c.dbs[db]
	if !ok {
		return nil
	}
	var out []*Function
	for _, f := range d.Functions {
		if f.Name == name {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// FunctionByID returns the routine with that OID in db, or nil.
func (c *Catalog) FunctionByID(db string, id uint64) *Function {
	if d, ok := c.dbs[db]; ok {
		return d.Functions[id]
	}
	return nil
}

// CreateFunction adds f with a new ID. The caller has checked that no
// routine of the same name has the same input argument types.
func (c *Catalog) CreateFunction(w kv.Writer, db string, f Function) (*Catalog, *Function, error) {
	if _, err := c.Database(db); err != nil {
		return nil, nil, err
	}
	n := c.clone()
	nf := f
	nf.ID = n.allocID()
	if err := writeJSON(w, FunctionKey(db, nf.ID), &nf); err != nil {
		return nil, nil, err
	}
	if err := writeNextID(w, n.nextID); err != nil {
		return nil, nil, err
	}
	n.cloneDB(db).Functions[nf.ID] = &nf
	return n, &nf, nil
}

// ReplaceFunction writes f over the routine with its ID (CREATE OR
// REPLACE, ALTER FUNCTION, COMMENT ON FUNCTION).
func (c *Catalog) ReplaceFunction(w kv.Writer, db string, f Function) (*Catalog, error) {
	if c.FunctionByID(db, f.ID) == nil {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s does not exist", f.Name)
	}
	nf := f
	if err := writeJSON(w, FunctionKey(db, nf.ID), &nf); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Functions[nf.ID] = &nf
	return n, nil
}

// DropFunction removes the routine with that ID.
func (c *Catalog) DropFunction(w kv.Writer, db string, id uint64) (*Catalog, error) {
	f := c.FunctionByID(db, id)
	if f == nil {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function with OID %d does not exist", id)
	}
	if err := w.Delete(FunctionKey(db, id)); err != nil {
		return nil, err
	}
	n := c.clone()
	delete(n.cloneDB(db).Functions, id)
	return n, nil
}

// loadFunction installs the descriptor at key (parts decoded) into c.
func loadFunction(c *Catalog, key []byte, parts []types.Datum, value []byte) error {
	if len(parts) != 3 {
		return corrupt(key, errors.New("want /function/db/id"))
	}
	f := new(Function)
	if err := json.Unmarshal(value, f); err != nil {
		return corrupt(key, err)
	}
	d, ok := c.dbs[parts[1].S]
	if !ok {
		return pgerror.Newf(pgerror.DataCorrupted, "catalog: function %q belongs to missing database %q at %s", f.Name, parts[1].S, encoding.Pretty(key))
	}
	if d.Functions == nil {
		d.Functions = map[uint64]*Function{}
	}
	d.Functions[f.ID] = f
	return nil
}

// functionDoc is f's catalog document form.
func functionDoc(f *Function) docFunction {
	df := docFunction{Name: f.Name, ID: num(f.ID), Kind: f.Kind, Returns: f.Returns, RetSet: flagNum(f.RetSet),
		Language: f.Language, Form: f.Form, Volatility: f.Volatility, Strict: flagNum(f.Strict),
		Leakproof: flagNum(f.Leakproof), Definer: flagNum(f.Definer), Parallel: f.Parallel, Cost: f.Cost, Rows: f.Rows,
		Owner: f.Owner, Body: f.Body, Comment: f.Comment}
	for _, a := range f.Args {
		df.Args = append(df.Args, docFunctionArg(a))
	}
	return df
}

// functionFromDoc is the routine a document's Function describes.
func functionFromDoc(df *docFunction) *Function {
	f := &Function{ID: uint64(df.ID), Name: df.Name, Kind: df.Kind, Returns: df.Returns, RetSet: df.RetSet != 0,
		Language: df.Language, Form: df.Form, Volatility: df.Volatility, Strict: df.Strict != 0,
		Leakproof: df.Leakproof != 0, Definer: df.Definer != 0, Parallel: df.Parallel, Cost: df.Cost, Rows: df.Rows,
		Owner: df.Owner, Body: df.Body, Comment: df.Comment}
	for _, a := range df.Args {
		f.Args = append(f.Args, FunctionArg(a))
	}
	return f
}
