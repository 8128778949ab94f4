package eval

import (
	"bufio"
	"context"
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/kvsql/kvsql/types"
)

func formatFloat(f float64, fam types.Family) string {
	return FormatText(types.NewFloat(f), types.T{Family: fam})
}

// TestFloatTextGolden checks the float8 and real text of ~4,000 random
// and boundary values against PostgreSQL 15's, recorded in
// testdata/float_pg15.txt.
func TestFloatTextGolden(t *testing.T) {
	f, err := os.Open("testdata/float_pg15.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 3 {
			t.Fatalf("bad line %q", line)
		}
		fam, bitSize := types.Float8, 64
		if fields[0] == "real" {
			fam, bitSize = types.Float4, 32
		}
		v, err := strconv.ParseFloat(fields[1], bitSize)
		if err != nil {
			t.Fatal(err)
		}
		if got := formatFloat(v, fam); got != fields[2] {
			t.Errorf("%s %s: got %s, PostgreSQL %s", fields[0], fields[1], got, fields[2])
		}
		n++
	}
	if n < 3000 {
		t.Fatalf("only %d values read", n)
	}
}

func TestFloatTextExamples(t *testing.T) {
	for _, c := range []struct {
		f    float64
		fam  types.Family
		want string
	}{
		{4611686016279904256, types.Float8, "4.6116860162799043e+18"},
		{math.Copysign(0, -1), types.Float8, "-0"},
		{1e15, types.Float8, "1e+15"},
		{123456789012345, types.Float8, "123456789012345"},
		{0.0001, types.Float8, "0.0001"},
		{0.00001234, types.Float8, "1.234e-05"},
		{5e-324, types.Float8, "5e-324"},
		{float64(float32(0.1)), types.Float4, "0.1"},
		{1e6, types.Float4, "1e+06"},
		{999999, types.Float4, "999999"},
		{math.Inf(-1), types.Float8, "-Infinity"},
		{math.NaN(), types.Float4, "NaN"},
	} {
		if got := formatFloat(c.f, c.fam); got != c.want {
			t.Errorf("FormatText(%v, %s) = %s, want %s", c.f, c.fam, got, c.want)
		}
	}
}

// TestFloatTextPostgres compares the text of random float8 and real values
// with a live PostgreSQL's, named by KVSQL_PG_URL (skipped without it):
// for example postgres://postgres@127.0.0.1:5432/postgres.
func TestFloatTextPostgres(t *testing.T) {
	url := os.Getenv("KVSQL_PG_URL")
	if url == "" {
		t.Skip("KVSQL_PG_URL not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	const n = 20000
	var ins8, ins4 []string
	var in8 []float64
	var in4 []float32
	for len(in8) < n {
		var f float64
		switch rng.Intn(4) {
		case 0:
			f = math.Float64frombits(rng.Uint64())
		case 1:
			f = float64(rng.Int63() >> uint(rng.Intn(63)))
		case 2:
			f = math.Float64frombits(rng.Uint64() &^ (1<<49 - 1)) // short, even mantissas
		default:
			f = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.Intn(40)-20))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		in8 = append(in8, f)
		ins8 = append(ins8, strconv.FormatFloat(f, 'g', 17, 64))
		g := math.Float32frombits(rng.Uint32())
		if g != g || math.IsInf(float64(g), 0) {
			g = float32(f)
		}
		if math.IsInf(float64(g), 0) {
			g = 1
		}
		in4 = append(in4, g)
		ins4 = append(ins4, strconv.FormatFloat(float64(g), 'g', 9, 32))
	}
	check := func(typ string, ins []string, want func(i int) string) {
		rows, err := conn.Query(ctx, "SELECT x::"+typ+"::text FROM unnest($1::text[]) WITH ORDINALITY AS u(x, i) ORDER BY i", ins)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		i, bad := 0, 0
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			if got := want(i); got != s && bad < 20 {
				t.Errorf("%s %s: got %s, PostgreSQL %s", typ, ins[i], got, s)
				bad++
			}
			i++
		}
		if rows.Err() != nil || i != len(ins) {
			t.Fatalf("%d rows, %v", i, rows.Err())
		}
	}
	check("float8", ins8, func(i int) string { return formatFloat(in8[i], types.Float8) })
	check("real", ins4, func(i int) string { return formatFloat(float64(in4[i]), types.Float4) })
}
