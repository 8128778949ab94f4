package main

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
)

// TestCheckDamagedIndex: check names the damaged sstable and the index
// its damaged block holds; --repair rebuilds the index from the master
// rows; afterwards the store checks clean and opens read-write.
func TestCheckDamagedIndex(t *testing.T) {
	dir, sst := testkit.DamagedStore(t, "index")
	var out bytes.Buffer
	err := checkCmd([]string{"--data", dir}, &out)
	if !errors.Is(err, errInconsistent) {
		t.Fatalf("check: %v\n%s", err, out.String())
	}
	for _, want := range []string{"damaged: " + filepath.Base(sst), `index "bad_v" of table "bad"`, "crc32c checksum mismatch"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("check output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), `holds keys`) && strings.Contains(out.String(), `table "good"`) {
		t.Fatalf("check blames table good:\n%s", out.String())
	}
	t.Logf("check:\n%s", out.String())
	out.Reset()
	if err := checkCmd([]string{"--data", dir, "--repair"}, &out); err != nil {
		t.Fatalf("check --repair: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), `repaired: rebuilt index "bad_v" of table "bad"`) {
		t.Fatalf("repair output:\n%s", out.String())
	}
	t.Logf("check --repair:\n%s", out.String())
	out.Reset()
	if err := checkCmd([]string{"--data", dir}, &out); err != nil || !strings.HasSuffix(out.String(), "ok\n") {
		t.Fatalf("check after repair: %v\n%s", err, out.String())
	}
	db, err := session.Open(session.Options{Dir: dir, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := testkit.NewSession(t, db)
	testkit.Want(t, s, "SELECT count(*) FROM bad WHERE v BETWEEN 1000 AND 2000", "1001")
	testkit.Must(t, s, "INSERT INTO bad VALUES (50000, 50000, 'new')")
	testkit.Want(t, s, "SELECT id FROM bad WHERE v = 50000", "50000")
}

// TestCheckDamagedMaster: a damaged master file cannot be rebuilt;
// --repair says so and fails.
func TestCheckDamagedMaster(t *testing.T) {
	dir, sst := testkit.DamagedStore(t, "master")
	var out bytes.Buffer
	err := checkCmd([]string{"--data", dir, "--repair"}, &out)
	if !errors.Is(err, errInconsistent) {
		t.Fatalf("check --repair: %v\n%s", err, out.String())
	}
	for _, want := range []string{"damaged: " + filepath.Base(sst), `cannot repair: table "bad" in ` + filepath.Base(sst)} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
	t.Logf("check --repair:\n%s", out.String())
}
