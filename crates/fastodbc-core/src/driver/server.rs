//! What the database server has, apart from its driver: the native types `create` may carry
//! a source column into, and the real limit of a column name. Facts of the server, read from
//! `SQL_DBMS_NAME` and `SQL_DBMS_VER` (`Server::detect`), each with its evidence; which of them
//! a load uses is fastodbc-arrow's `ingest::create`.

use crate::sqlscan::Brackets;

/// The database behind the driver.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Dbms {
    PostgreSql,
    MariaDb,
    Sqlite,
    /// A database fastodbc does not know (MySQL among them: its JSON is a binary form that
    /// reorders keys, no type of the same name keeps the text).
    #[default]
    Other,
}

/// A type of a database's own that holds values fetched as text, with no ODBC SQL type of
/// its own (or one the drivers describe as text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeType {
    Uuid,
    /// JSON kept as the text given (PostgreSQL `json`; MariaDB `JSON`, a LONGTEXT checked by
    /// `JSON_VALID`).
    Json,
    /// JSON parsed into a binary form (PostgreSQL `jsonb`: keys sorted, duplicates dropped).
    Jsonb,
    /// An IPv4 or IPv6 host or network with its mask (PostgreSQL `inet`).
    Inet,
    /// An IPv6 address (MariaDB `INET6`, 10.5+; PostgreSQL's `inet` holds it too).
    Inet6,
    /// An IPv4 address (MariaDB `INET4`, 10.10+).
    Inet4,
    Cidr,
    Macaddr,
    Interval,
    /// A time of day with a UTC offset (PostgreSQL `timetz`).
    TimeTz,
    Xml,
    /// The database's arrays, named `_element` (PostgreSQL's `_int4`, accepted in DDL as
    /// such): `native_name` gives "" for them, the source's own name being the type.
    Arrays,
}

/// How a column name's length is counted against the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameUnit {
    /// UTF-8 bytes (PostgreSQL: NAMEDATALEN - 1 bytes).
    Bytes,
    Characters,
}

/// The longest column name the server keeps as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameLimit {
    pub most: usize,
    pub unit: NameUnit,
}

/// The server of a connection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Server {
    pub dbms: Dbms,
    /// (major, minor) of `SQL_DBMS_VER` (`10.11.000019` -> (10, 11)); (0, 0) when unread.
    pub version: (u32, u32),
}

impl Server {
    /// The server named by `SQL_DBMS_NAME` (`PostgreSQL`, `MariaDB`, `SQLite`) and
    /// `SQL_DBMS_VER`. MariaDB Connector/ODBC says `MariaDB` for a MariaDB server, `MySQL` for
    /// a MySQL one.
    pub fn detect(dbms_name: &str, dbms_ver: &str) -> Server {
        let name = dbms_name.trim().to_ascii_lowercase();
        let dbms = match name.as_str() {
            "postgresql" => Dbms::PostgreSql,
            "mariadb" => Dbms::MariaDb,
            "sqlite" => Dbms::Sqlite,
            _ => Dbms::Other,
        };
        let mut parts = dbms_ver
            .trim()
            .split(|c: char| !c.is_ascii_digit())
            .map(|p| p.parse::<u32>().unwrap_or(0));
        let major = parts.next().unwrap_or(0);
        let minor = parts.next().unwrap_or(0);
        Server {
            dbms,
            version: (major, minor),
        }
    }

    /// What `[` starts in the server's SQL, for counting markers as the driver will.
    /// PostgreSQL: arrays (`ARRAY[?, ?]`, `a[?]`); MariaDB has no bracketed names (`[`
    /// appears only in JSON path strings). SQLite reads `[a]` as a name, but its driver counts
    /// a `?` inside as a marker ("parameter marker count incorrect" otherwise). An unknown
    /// server is read as SQL Server, whose bracketed names may hold a `?`.
    pub fn brackets(&self) -> Brackets {
        match self.dbms {
            Dbms::PostgreSql | Dbms::MariaDb | Dbms::Sqlite => Brackets::Plain,
            Dbms::Other => Brackets::Quote,
        }
    }

    fn at_least(&self, major: u32, minor: u32) -> bool {
        self.version >= (major, minor)
    }

    /// The server's name for native type `t`, where it has one that takes the type's text
    /// as a literal and gives it back. PostgreSQL 9.4+ has them all (`jsonb` since 9.4).
    /// MariaDB: `UUID` since 10.7, `INET6` since 10.5, `INET4` since 10.10, `JSON` since
    /// 10.2.7 (an alias of LONGTEXT with a `JSON_VALID` check: the text is kept as given).
    /// SQLite has no types: a declared name only picks an affinity (`uuid` is NUMERIC's,
    /// which turns `'123'` into 123), so none is used there.
    pub fn native_name(&self, t: NativeType) -> Option<&'static str> {
        use NativeType as N;
        match self.dbms {
            Dbms::PostgreSql => Some(match t {
                N::Uuid => "uuid",
                N::Json => "json",
                N::Jsonb => "jsonb",
                N::Inet | N::Inet6 | N::Inet4 => "inet",
                N::Cidr => "cidr",
                N::Macaddr => "macaddr",
                N::Interval => "interval",
                N::TimeTz => "timetz",
                N::Xml => "xml",
                N::Arrays => "",
            }),
            Dbms::MariaDb => match t {
                N::Uuid if self.at_least(10, 7) => Some("UUID"),
                N::Json if self.at_least(10, 2) => Some("JSON"),
                N::Inet6 if self.at_least(10, 5) => Some("INET6"),
                N::Inet4 if self.at_least(10, 10) => Some("INET4"),
                _ => None,
            },
            Dbms::Sqlite | Dbms::Other => None,
        }
    }

    /// The longest column name the server keeps, given the driver's
    /// `SQL_MAX_COLUMN_NAME_LEN` (`reported`, 0: no answer). PostgreSQL cuts a longer name
    /// at 63 bytes with only a NOTICE (psqlODBC reports the 63). MariaDB refuses names over
    /// 64 characters (1059), and Connector/ODBC 3.1 reports 255. Elsewhere the driver's answer,
    /// in characters.
    pub fn column_name_limit(&self, reported: usize) -> Option<NameLimit> {
        match self.dbms {
            Dbms::PostgreSql if reported > 0 => Some(NameLimit {
                most: reported,
                unit: NameUnit::Bytes,
            }),
            Dbms::MariaDb => Some(NameLimit {
                most: 64,
                unit: NameUnit::Characters,
            }),
            _ => (reported > 0).then_some(NameLimit {
                most: reported,
                unit: NameUnit::Characters,
            }),
        }
    }
}

impl NameLimit {
    /// The length of `name` in this limit's unit.
    pub fn length_of(&self, name: &str) -> usize {
        match self.unit {
            NameUnit::Bytes => name.len(),
            NameUnit::Characters => name.chars().count(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_by_name_and_version() {
        let m = Server::detect("MariaDB", "10.11.000019");
        assert_eq!(m.dbms, Dbms::MariaDb);
        assert_eq!(m.version, (10, 11));
        assert_eq!(m.native_name(NativeType::Uuid), Some("UUID"));
        assert_eq!(m.native_name(NativeType::Inet4), Some("INET4"));
        let old = Server::detect("MariaDB", "10.6.000001");
        assert_eq!(old.native_name(NativeType::Uuid), None);
        assert_eq!(old.native_name(NativeType::Inet6), Some("INET6"));
        assert_eq!(m.native_name(NativeType::Interval), None);
        let pg = Server::detect("PostgreSQL", "15.0018");
        assert_eq!(pg.native_name(NativeType::Jsonb), Some("jsonb"));
        let lite = Server::detect("SQLite", "3.40.1");
        assert_eq!(lite.native_name(NativeType::Uuid), None);
        assert_eq!(pg.brackets(), Brackets::Plain);
        assert_eq!(lite.brackets(), Brackets::Plain);
        assert_eq!(m.brackets(), Brackets::Plain);
        let mssql = Server::detect("Microsoft SQL Server", "16.00.4135");
        assert_eq!(mssql.brackets(), Brackets::Quote);
        assert_eq!(Server::detect("MySQL", "8.0.36").dbms, Dbms::Other);
        assert_eq!(Server::detect("", "").version, (0, 0));
    }

    #[test]
    fn column_name_limits() {
        let pg = Server::detect("PostgreSQL", "15.0018").column_name_limit(63);
        assert_eq!(pg.map(|l| l.length_of("é")), Some(2));
        let m = Server::detect("MariaDB", "10.11.000019").column_name_limit(255);
        assert_eq!(m.map(|l| (l.most, l.length_of("é"))), Some((64, 1)));
        assert_eq!(Server::default().column_name_limit(0), None);
    }
}
