package bench

// The tests compare with SQLite in process; the package leaves registering
// its driver to the program (OpenSQLiteEmbedded).
import _ "modernc.org/sqlite"
