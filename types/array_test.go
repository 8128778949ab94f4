package types

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestArrayShapeRoundTrip checks that every shape and its elements read
// back from the encoded array, that the form is valid, and that a plain
// shape (one dimension from 1) keeps the header-less form.
func TestArrayShapeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := 1 + r.IntN(MaxArrayDims)
		sh := ArrayShape{Lens: make([]int, n), Lower: make([]int, n)}
		for i := range sh.Lens {
			sh.Lens[i], sh.Lower[i] = 1+r.IntN(3), r.IntN(7)-3
		}
		if r.IntN(4) == 0 {
			sh = Vector(r.IntN(5))
		}
		elems := make([]Datum, sh.Count())
		for i := range elems {
			if r.IntN(5) > 0 {
				elems[i] = NewInt(r.Int64N(1000) - 500)
			}
		}
		d := NewArrayShaped(elems, sh)
		got, err := ArrayElems(nil, d)
		if err != nil || !ArrayValid(d.S) || ArrayLen(d) != len(elems) || (len(elems) > 0 && !reflect.DeepEqual(got, elems)) {
			t.Fatalf("%+v: elems %v err %v valid %v", sh, got, err, ArrayValid(d.S))
		}
		if gs := ArrayShapeOf(d); !reflect.DeepEqual(gs, sh) {
			t.Fatalf("shape %+v read back as %+v", sh, gs)
		}
		if sh.plain() && d != NewArray(elems) {
			t.Fatalf("%+v: a plain shape has a header", sh)
		}
	}
}

// TestArrayValidRejects checks malformed headers: a plain shape written
// with a header, too many dimensions, a count that is not the shape's.
func TestArrayValidRejects(t *testing.T) {
	for _, s := range []string{
		arrayHeader + "\x01\x02\x02" + "\x02\x02\x02\x02\x04", // [1:2] with a header
		arrayHeader + "\x07", // 7 dimensions
		arrayHeader + "\x01\x02\x00" + "\x03\x02\x02\x02\x04\x02\x06", // 2 elements by shape, 3 by count
		arrayHeader + "\x01\x00\x00" + "\x00",                         // a dimension of length 0
		arrayHeader,
	} {
		if ArrayValid(s) {
			t.Errorf("%q: valid", s)
		}
	}
}

// FuzzArrayValid: ArrayValid never panics, and what it accepts decodes.
func FuzzArrayValid(f *testing.F) {
	f.Add(NewArrayShaped([]Datum{NewInt(1), Null}, ArrayShape{Lens: []int{1, 2}, Lower: []int{0, 5}}).S)
	f.Add(NewArray([]Datum{NewText("x")}).S)
	f.Fuzz(func(t *testing.T, s string) {
		if !ArrayValid(s) {
			return
		}
		d := Datum{Kind: KindArray, S: s}
		xs, err := ArrayElems(nil, d)
		if err != nil || len(xs) != ArrayShapeOf(d).Count() {
			t.Fatalf("%q: valid but %v, %d elements", s, err, len(xs))
		}
	})
}

func TestSameComposite(t *testing.T) {
	mk := func(oid uint32, field Family) T {
		return RecordOf(&Composite{Name: "c", OID: oid, Fields: []Field{{Name: "a", T: T{Family: field}}}})
	}
	if a, b := mk(100, Int4), mk(100, Int4); a == b || !a.Same(b) {
		t.Errorf("two resolutions of one composite type: == %v, Same %v", a == b, a.Same(b))
	}
	if mk(100, Int4).Same(mk(101, Int4)) || mk(100, Int4).Same(mk(100, Text)) {
		t.Error("different composite types are Same")
	}
	if !ArrayOf(mk(100, Int4)).Same(ArrayOf(mk(100, Int4))) || ArrayOf(mk(100, Int4)).Same(mk(100, Int4)) {
		t.Error("arrays of composite types")
	}
}
