// pgjdbc (Debian's libpostgresql-jdbc-java) against one server:
// PreparedStatement, a batch, generated keys and the DatabaseMetaData
// calls tools make (getTables of tables, views, indexes and sequences,
// getColumns, getPrimaryKeys, getIndexInfo).
// It prints what it sees, one line per fact, so a test can compare
// kvsql's output with PostgreSQL 15's, and checks the values it knows.
import java.sql.*;
import java.util.*;

public class JdbcClient {
    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    static void dump(String label, ResultSet rs, String... cols) throws SQLException {
        while (rs.next()) {
            StringBuilder b = new StringBuilder(label);
            for (String c : cols) {
                b.append(' ').append(c).append('=').append(rs.getString(c));
            }
            System.out.println(b);
        }
        rs.close();
    }

    public static void main(String[] args) throws Exception {
        // args[0] is postgres://user@host:port/db?...
        java.net.URI u = new java.net.URI(args[0]);
        String url = "jdbc:postgresql://" + u.getHost() + ":" + u.getPort() + u.getPath();
        Properties p = new Properties();
        p.setProperty("user", u.getUserInfo());
        try (Connection c = DriverManager.getConnection(url, p)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE jd_item (id serial PRIMARY KEY, name varchar(40) NOT NULL, price numeric(8,2), qty integer DEFAULT 0, CONSTRAINT jd_item_name_key UNIQUE (name))");
                s.execute("CREATE INDEX jd_item_price_idx ON jd_item (price, qty)");
                s.execute("CREATE VIEW jd_cheap AS SELECT id, name FROM jd_item WHERE price < 5");
                s.execute("CREATE TABLE jd_event (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, what text)");
                s.execute("CREATE SEQUENCE jd_ticket START 100");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO jd_item (name, price, qty) VALUES (?, ?, ?)", Statement.RETURN_GENERATED_KEYS)) {
                ps.setString(1, "apple");
                ps.setBigDecimal(2, new java.math.BigDecimal("1.25"));
                ps.setInt(3, 10);
                check(ps.executeUpdate() == 1, "insert count");
                ResultSet k = ps.getGeneratedKeys();
                check(k.next(), "a generated key");
                System.out.println("generated id=" + k.getInt("id") + " name=" + k.getString("name"));
                check(k.getInt("id") == 1, "first id is 1");
                k.close();
            }
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO jd_item (name, price) VALUES (?, ?)")) {
                String[] names = {"pear", "plum", "fig"};
                for (int i = 0; i < names.length; i++) {
                    ps.setString(1, names[i]);
                    ps.setBigDecimal(2, new java.math.BigDecimal(i * 3 + 2));
                    ps.addBatch();
                }
                int[] counts = ps.executeBatch();
                System.out.println("batch " + Arrays.toString(counts));
                check(counts.length == 3, "three batch counts");
            }
            c.commit();
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement("SELECT id, name, price, qty FROM jd_item WHERE price > ? ORDER BY id")) {
                ps.setBigDecimal(1, new java.math.BigDecimal("1.5"));
                int n = 0;
                ResultSet rs = ps.executeQuery();
                while (rs.next()) {
                    n++;
                    System.out.println("row " + rs.getInt(1) + " " + rs.getString(2) + " " + rs.getBigDecimal(3) + " " + rs.getInt(4));
                }
                check(n == 3, "three rows over 1.5");
            }
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO jd_item (name) VALUES ('apple')");
                check(false, "a duplicate name was accepted");
            } catch (SQLException e) {
                System.out.println("duplicate " + e.getSQLState());
                check(e.getSQLState().equals("23505"), "23505");
            }
            DatabaseMetaData md = c.getMetaData();
            dump("table", md.getTables(null, "public", "jd_%", new String[] {"TABLE", "VIEW", "INDEX"}), "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE");
            // SERIAL's and identity's sequences are sequences too, as
            // DBeaver's and DataGrip's navigators list them.
            int seqs = 0;
            ResultSet rs = md.getTables(null, "public", "jd_%", new String[] {"SEQUENCE"});
            while (rs.next()) {
                seqs++;
                System.out.println("sequence " + rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME") + " " + rs.getString("TABLE_TYPE"));
            }
            rs.close();
            check(seqs == 3, "three sequences (jd_event_id_seq, jd_item_id_seq, jd_ticket)");
            dump("column", md.getColumns(null, "public", "jd_item", "%"), "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME",
                    "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE", "COLUMN_DEF", "ORDINAL_POSITION", "IS_NULLABLE", "IS_AUTOINCREMENT");
            dump("pk", md.getPrimaryKeys(null, "public", "jd_item"), "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ", "PK_NAME");
            dump("index", md.getIndexInfo(null, "public", "jd_item", false, false), "NON_UNIQUE", "INDEX_NAME", "TYPE",
                    "ORDINAL_POSITION", "COLUMN_NAME", "ASC_OR_DESC");
        }
        System.out.println("all checks passed");
    }
}
