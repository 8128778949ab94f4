package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/foreign"
	"github.com/kvsql/kvsql/kv"
)

// runCatalog implements `kvsql catalog export|import`. args are the
// arguments after the verb "catalog".
//
//	kvsql catalog export [--data DIR] [--format xml|json]   (to stdout)
//	kvsql catalog import FILE [--data DIR]
func runCatalog(args []string) error { return catalogCmd(args, os.Stdout) }

func catalogCmd(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: kvsql catalog export|import")
	}
	fs := flag.NewFlagSet("catalog "+args[0], flag.ContinueOnError)
	data := fs.String("data", "./kvsql-data", "data directory")
	switch args[0] {
	case "export":
		format := fs.String("format", "xml", "document format: xml or json")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		export := map[string]func(*catalog.Catalog) ([]byte, error){"xml": catalog.ExportXML, "json": catalog.ExportJSON}[*format]
		if export == nil {
			return fmt.Errorf("catalog export: unknown --format %q (want xml or json)", *format)
		}
		e, c, err := openStore(*data)
		if err != nil {
			return err
		}
		defer e.Close()
		doc, err := export(c)
		if err != nil {
			return err
		}
		_, err = stdout.Write(doc)
		return err
	case "import":
		// The file may come before or after the flags.
		var file string
		rest := args[1:]
		if len(rest) > 0 && len(rest[0]) > 0 && rest[0][0] != '-' {
			file, rest = rest[0], rest[1:]
		}
		if err := fs.Parse(rest); err != nil {
			return err
		}
		if file == "" && fs.NArg() == 1 {
			file = fs.Arg(0)
		}
		if file == "" {
			return errors.New("usage: kvsql catalog import FILE [--data DIR]")
		}
		return importCatalog(file, *data, stdout)
	}
	return fmt.Errorf("catalog: unknown subcommand %q (want export or import)", args[0])
}

// openStore opens the Pebble store in dir and loads its catalog.
func openStore(dir string) (kv.Engine, *catalog.Catalog, error) {
	e, err := kv.OpenPebble(dir, kv.PebbleOptions{})
	if err != nil {
		return nil, nil, err
	}
	c, err := catalog.Open(e)
	if err != nil {
		e.Close()
		return nil, nil, err
	}
	return e, c, nil
}

// importCatalog replaces the catalog of the store in dir with the document
// in file (XML, or JSON when it starts with '{'). Table and index data
// already in the store are kept: the document must describe them.
func importCatalog(file, dir string, stdout io.Writer) error {
	progress := newProgressLine()
	defer progress.clear()
	progress.phase("reading %s", file)
	doc, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	parse := catalog.ImportXML
	for _, b := range doc {
		if b == ' ' || b == '\n' || b == '\t' || b == '\r' {
			continue
		}
		if b == '{' {
			parse = catalog.ImportJSON
		}
		break
	}
	c, err := parse(doc)
	if err != nil {
		return err
	}
	if err := checkForeignStores(c, filepath.Dir(file)); err != nil {
		return err
	}
	progress.phase("installing %d database(s) into %s", len(c.Databases()), dir)
	e, old, err := openStore(dir)
	if err != nil {
		return err
	}
	defer e.Close()
	if c.ForeignDatabases() {
		// A document that only attaches application stores adds them
		// to the store's catalog instead of replacing it.
		if c, err = old.AttachForeign(c); err != nil {
			return err
		}
	}
	b := e.NewBatch()
	defer b.Close()
	if err := catalog.ClearMeta(b); err != nil {
		return err
	}
	if err := catalog.Install(b, c); err != nil {
		return err
	}
	if err := b.Commit(true); err != nil {
		return err
	}
	progress.clear()
	fmt.Fprintf(stdout, "imported %d database(s) from %s\n", len(c.Databases()), file)
	return nil
}

// checkForeignStores resolves the store paths of c's foreign databases
// against dir (the document's directory) and opens each once, so that a
// wrong path is reported by the import rather than by the first query.
func checkForeignStores(c *catalog.Catalog, dir string) error {
	if err := c.ResolveStores(dir); err != nil {
		return err
	}
	for _, name := range c.Databases() {
		d, _ := c.Database(name)
		if d.Foreign == nil {
			continue
		}
		st, err := foreign.Open(foreign.StoreSpec{URL: d.Foreign.URL})
		if err != nil {
			return fmt.Errorf("DataBase %q: %w", name, err)
		}
		st.Close()
	}
	return nil
}
