package foreign

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"testing"
)

// TestOverlayMerge checks an overlay's reads against a map model: random
// store contents, random buffered puts and deletes, savepoint rollbacks,
// then every key range read through NewIter and Get; Commit leaves the
// store equal to the model.
func TestOverlayMerge(t *testing.T) {
	seed := int64(7)
	rng := rand.New(rand.NewSource(seed))
	for _, engine := range []string{"leveldb", "pebble"} {
		t.Run(engine, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), engine)
			var st Store
			var err error
			if engine == "leveldb" {
				st, err = CreateLevelDB(dir)
			} else {
				st, err = CreatePebble(dir)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			model := map[string]string{}
			key := func() string { return fmt.Sprintf("k%02d", rng.Intn(40)) }
			var init []KV
			for i := 0; i < 20; i++ {
				k, v := key(), fmt.Sprint(rng.Intn(1000))
				init = append(init, KV{Key: []byte(k), Value: []byte(v)})
				model[k] = v
			}
			if err := st.Write(init); err != nil {
				t.Fatal(err)
			}
			o := NewOverlay(st)
			for round := 0; round < 30; round++ {
				mark := o.Mark()
				saved := map[string]string{}
				for k, v := range model {
					saved[k] = v
				}
				var ops []KV
				for i := rng.Intn(5); i >= 0; i-- {
					k := key()
					if rng.Intn(3) == 0 {
						ops = append(ops, KV{Key: []byte(k), Delete: true})
						delete(model, k)
					} else {
						v := fmt.Sprint(rng.Intn(1000))
						ops = append(ops, KV{Key: []byte(k), Value: []byte(v)})
						model[k] = v
					}
				}
				if err := o.Write(ops); err != nil {
					t.Fatal(err)
				}
				if rng.Intn(4) == 0 {
					o.RollbackTo(mark)
					model = saved
				}
				checkOverlay(t, rng, o, model)
			}
			if err := o.Commit(); err != nil {
				t.Fatal(err)
			}
			if !o.Empty() {
				t.Error("overlay not empty after Commit")
			}
			checkOverlay(t, rng, st, model)
		})
	}
}

func checkOverlay(t *testing.T, rng *rand.Rand, st Store, model map[string]string) {
	t.Helper()
	lo := fmt.Sprintf("k%02d", rng.Intn(40))
	hi := fmt.Sprintf("k%02d", rng.Intn(40))
	if hi < lo {
		lo, hi = hi, lo
	}
	var want []string
	for k, v := range model {
		if k >= lo && k < hi {
			want = append(want, k+"="+v)
		}
	}
	sort.Strings(want)
	it, err := st.NewIter([]byte(lo), []byte(hi))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ok := it.First(); ok; ok = it.Next() {
		got = append(got, string(it.Key())+"="+string(it.Value()))
	}
	it.Close()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("[%s, %s): got %v, want %v", lo, hi, got, want)
	}
	k := fmt.Sprintf("k%02d", rng.Intn(40))
	v, found, err := st.Get([]byte(k))
	if mv, ok := model[k]; err != nil || found != ok || string(v) != mv {
		t.Fatalf("Get %s: %q %v %v, want %q %v", k, v, found, err, mv, ok)
	}
}
