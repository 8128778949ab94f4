package session

import (
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/wire/backend"
)

// checkCopyOptions refuses the option combinations PostgreSQL refuses
// (ProcessCopyOptions), with its messages and SQLSTATEs.
func checkCopyOptions(c *parse.CopyStmt) error {
	csv := c.Format == "csv"
	switch {
	case c.Format == "binary" && c.Delimiter != "":
		return pgerror.New(pgerror.SyntaxError, "cannot specify DELIMITER in BINARY mode")
	case c.Format == "binary" && c.NullSet:
		return pgerror.New(pgerror.SyntaxError, "cannot specify NULL in BINARY mode")
	case c.Format == "binary" && c.Header:
		return pgerror.New(pgerror.SyntaxError, "cannot specify HEADER in BINARY mode")
	case c.Delimiter != "" && len(c.Delimiter) != 1:
		return pgerror.New(pgerror.FeatureNotSupported, "COPY delimiter must be a single one-byte character")
	case strings.ContainsAny(c.Delimiter, "\r\n"):
		return pgerror.New(pgerror.InvalidParameterValue, "COPY delimiter cannot be newline or carriage return")
	case strings.ContainsAny(c.Null, "\r\n"):
		return pgerror.New(pgerror.InvalidParameterValue, "COPY null representation cannot use newline or carriage return")
	case c.Format == "text" && c.Delimiter != "" && strings.Contains(`\.abcdefghijklmnopqrstuvwxyz0123456789`, c.Delimiter):
		return pgerror.Newf(pgerror.InvalidParameterValue, "COPY delimiter cannot be %q", c.Delimiter)
	case c.HeaderMatch && !c.From:
		return pgerror.New(pgerror.FeatureNotSupported, `cannot use "match" with HEADER in COPY TO`)
	case !csv && c.Quote != "":
		return pgerror.New(pgerror.FeatureNotSupported, "COPY quote available only in CSV mode")
	case csv && c.Quote != "" && len(c.Quote) != 1:
		return pgerror.New(pgerror.FeatureNotSupported, "COPY quote must be a single one-byte character")
	case csv && c.Delimiter != "" && c.Delimiter == quoteOf(c):
		return pgerror.New(pgerror.InvalidParameterValue, "COPY delimiter and quote must be different")
	case !csv && c.Escape != "":
		return pgerror.New(pgerror.FeatureNotSupported, "COPY escape available only in CSV mode")
	case csv && c.Escape != "" && len(c.Escape) != 1:
		return pgerror.New(pgerror.FeatureNotSupported, "COPY escape must be a single one-byte character")
	case !csv && (c.ForceQuote != nil || c.ForceQuoteAll):
		return pgerror.New(pgerror.FeatureNotSupported, "COPY force quote available only in CSV mode")
	case (c.ForceQuote != nil || c.ForceQuoteAll) && c.From:
		return pgerror.New(pgerror.FeatureNotSupported, "COPY force quote only available using COPY TO")
	case !csv && c.ForceNotNull != nil:
		return pgerror.New(pgerror.FeatureNotSupported, "COPY force not null available only in CSV mode")
	case c.ForceNotNull != nil && !c.From:
		return pgerror.New(pgerror.FeatureNotSupported, "COPY force not null only available using COPY FROM")
	case !csv && c.ForceNull != nil:
		return pgerror.New(pgerror.FeatureNotSupported, "COPY force null available only in CSV mode")
	case c.ForceNull != nil && !c.From:
		return pgerror.New(pgerror.FeatureNotSupported, "COPY force null only available using COPY FROM")
	case c.Delimiter != "" && strings.Contains(c.Null, c.Delimiter):
		return pgerror.New(pgerror.FeatureNotSupported, "COPY delimiter must not appear in the NULL specification")
	case csv && strings.Contains(c.Null, quoteOf(c)):
		return pgerror.New(pgerror.FeatureNotSupported, "CSV quote character must not appear in the NULL specification")
	}
	return checkCopyEncoding(c.Encoding)
}

// quoteOf is the CSV quote character c uses.
func quoteOf(c *parse.CopyStmt) string {
	if c.Quote != "" {
		return c.Quote
	}
	return `"`
}

// checkCopyEncoding accepts the encodings whose bytes kvsql reads as they
// are: UTF8 (the only one it speaks) and SQL_ASCII (no conversion).
// Another encoding would need a conversion kvsql does not have.
func checkCopyEncoding(name string) error {
	switch strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(name)) {
	case "", "utf8", "unicode", "sqlascii":
		return nil
	}
	return pgerror.Newf(pgerror.FeatureNotSupported, "COPY ENCODING %q is not supported: kvsql reads and writes UTF8", name)
}

// forceColumns maps a FORCE option's column list onto the COPY's
// columns (names): 42703 for a column tbl lacks, 42P10 for one the COPY
// does not name. tbl is nil for COPY (query) TO.
func forceColumns(option string, list []string, names []string, tbl *catalog.Table) ([]bool, error) {
	if list == nil {
		return nil, nil
	}
	out := make([]bool, len(names))
	for _, col := range list {
		i := indexOf(names, col)
		if !hasColumn(tbl, col) && (tbl != nil || i < 0) {
			return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q does not exist", col)
		}
		if i < 0 {
			return nil, pgerror.Newf(pgerror.InvalidColumnReference, "%s column %q not referenced by COPY", option, col)
		}
		out[i] = true
	}
	return out, nil
}

// hasColumn reports whether tbl (nil: none) has a visible column col.
func hasColumn(tbl *catalog.Table, col string) bool {
	if tbl == nil {
		return false
	}
	o := tbl.ColumnOrdinal(col)
	return o >= 0 && !tbl.Columns[o].Hidden
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// setForceOptions fills spec's FORCE_* columns from c.
func setForceOptions(spec *backend.CopySpec, c *parse.CopyStmt, names []string, tbl *catalog.Table) error {
	var err error
	if c.ForceQuoteAll {
		spec.ForceQuote = make([]bool, len(names))
		for i := range spec.ForceQuote {
			spec.ForceQuote[i] = true
		}
	} else if spec.ForceQuote, err = forceColumns("FORCE_QUOTE", c.ForceQuote, names, tbl); err != nil {
		return err
	}
	if spec.ForceNotNull, err = forceColumns("FORCE_NOT_NULL", c.ForceNotNull, names, tbl); err != nil {
		return err
	}
	spec.ForceNull, err = forceColumns("FORCE_NULL", c.ForceNull, names, tbl)
	return err
}
