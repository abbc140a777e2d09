//! What a fetched column was in its database, carried in its Arrow field's metadata so that a
//! table made from it (`ingest`'s `create`, also from a Parquet file `export` wrote, which
//! keeps field metadata) can be made alike. Written when an Arrow reader describes a result
//! (`with_source`), read by `ingest::create` (`SourceColumn::of`).
//!
//! Keys (values are text):
//! - `fastodbc.sql_type`: the database's name of the type (`SQL_DESC_TYPE_NAME`: `uuid`,
//!   `varchar`, `VARCHAR`, `_int4`), as the driver gives it;
//! - `fastodbc.length`: characters of a CHAR / VARCHAR, bytes of a BINARY / VARBINARY, where
//!   the driver describes a length that is the column's;
//! - `fastodbc.precision`, `fastodbc.scale`: digits of an exact number; `fastodbc.scale`
//!   also the fractional second digits of a TIME / TIMESTAMP, where sizes are limits;
//! - `fastodbc.not_null`: `true` where the driver describes the column NOT NULL. Not the
//!   field's nullable flag: drivers say so of columns that hold NULLs (Connector/ODBC of its
//!   catalog results' TABLE_SCHEM), and Arrow refuses a batch with a NULL in such a field.

use std::collections::HashMap;

use arrow_schema::Field;
use fastodbc_core::driver::NativeType;
use fastodbc_core::{ColumnDescription, ValueKind};

pub const SQL_TYPE_KEY: &str = "fastodbc.sql_type";
pub const LENGTH_KEY: &str = "fastodbc.length";
pub const PRECISION_KEY: &str = "fastodbc.precision";
pub const SCALE_KEY: &str = "fastodbc.scale";
pub const NOT_NULL_KEY: &str = "fastodbc.not_null";

/// A source type's family, by its name: the types a target may have a type of the same kind
/// for, and the character and binary types whose length is carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// CHAR(n) (PostgreSQL `bpchar`).
    Char,
    VarChar,
    Binary,
    VarBinary,
    Native(NativeType),
}

impl Family {
    /// The family of type name `name` (any case; a declared `varchar(20)` as SQLite gives it
    /// counts as `varchar`), or None: the Arrow type alone decides the column.
    pub fn of(name: &str) -> Option<Family> {
        let n = name.trim().to_ascii_lowercase();
        let base = n.split('(').next().unwrap_or("").trim();
        use NativeType as N;
        Some(match base {
            "char" | "character" | "bpchar" | "nchar" => Family::Char,
            "varchar" | "character varying" | "nvarchar" | "varchar2" => Family::VarChar,
            "binary" => Family::Binary,
            "varbinary" => Family::VarBinary,
            "uuid" | "uniqueidentifier" => Family::Native(N::Uuid),
            "json" => Family::Native(N::Json),
            "jsonb" => Family::Native(N::Jsonb),
            "inet" => Family::Native(N::Inet),
            "inet6" => Family::Native(N::Inet6),
            "inet4" => Family::Native(N::Inet4),
            "cidr" => Family::Native(N::Cidr),
            "macaddr" => Family::Native(N::Macaddr),
            "interval" => Family::Native(N::Interval),
            "timetz" | "time with time zone" => Family::Native(N::TimeTz),
            "xml" => Family::Native(N::Xml),
            // PostgreSQL names an array type by its element's name after an underscore.
            a if a.len() > 1 && a.starts_with('_') && !a[1..].starts_with('_') => {
                Family::Native(N::Arrays)
            }
            _ => return None,
        })
    }

    /// A type whose declared length bounds its values.
    pub fn has_length(self) -> bool {
        matches!(
            self,
            Family::Char | Family::VarChar | Family::Binary | Family::VarBinary
        )
    }
}

/// What the reader knows of the result's column beyond its Arrow type.
pub struct Described<'a> {
    pub desc: &'a ColumnDescription,
    pub kind: ValueKind,
    /// `SQL_DESC_TYPE_NAME` ("" where the driver gives none).
    pub type_name: &'a str,
    /// Declared sizes are limits (not SQLite's).
    pub sizes_reliable: bool,
    /// A described text size that is no length (`Strategy::unknown_text_size`).
    pub unknown_text_size: Option<usize>,
}

/// `field` with what its source column was: type name, length, digits, and NOT NULL (where
/// the driver says so).
pub fn with_source(field: Field, d: &Described<'_>) -> Field {
    let mut meta = HashMap::new();
    if !d.type_name.is_empty() {
        meta.insert(SQL_TYPE_KEY.to_string(), crate::schema::c_safe(d.type_name));
    }
    let sized = d.desc.size > 0 && d.sizes_reliable;
    let family = Family::of(d.type_name);
    if sized && family.is_some_and(Family::has_length) && Some(d.desc.size) != d.unknown_text_size {
        meta.insert(LENGTH_KEY.to_string(), d.desc.size.to_string());
    }
    match d.kind {
        ValueKind::Decimal if sized => {
            meta.insert(PRECISION_KEY.to_string(), d.desc.size.to_string());
            meta.insert(SCALE_KEY.to_string(), d.desc.digits.max(0).to_string());
        }
        ValueKind::Time | ValueKind::Timestamp if d.sizes_reliable => {
            meta.insert(SCALE_KEY.to_string(), d.desc.digits.clamp(0, 9).to_string());
        }
        _ => {}
    }
    if !d.desc.nullable {
        meta.insert(NOT_NULL_KEY.to_string(), "true".to_string());
    }
    field.with_metadata(meta)
}

/// The facts a field's metadata carries (none for a field from elsewhere).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceColumn {
    pub type_name: Option<String>,
    pub length: Option<usize>,
    pub scale: Option<u32>,
    pub not_null: bool,
}

impl SourceColumn {
    pub fn of(field: &Field) -> SourceColumn {
        let meta = field.metadata();
        let number = |k: &str| meta.get(k).and_then(|v| v.trim().parse::<usize>().ok());
        SourceColumn {
            type_name: meta.get(SQL_TYPE_KEY).cloned(),
            length: number(LENGTH_KEY).filter(|n| *n > 0),
            scale: number(SCALE_KEY).and_then(|n| u32::try_from(n).ok()),
            not_null: meta.get(NOT_NULL_KEY).is_some_and(|v| v.trim() == "true"),
        }
    }

    pub fn family(&self) -> Option<Family> {
        self.type_name.as_deref().and_then(Family::of)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastodbc_core::driver::NativeType as N;

    #[test]
    fn families_by_name() {
        assert_eq!(Family::of("varchar(20)"), Some(Family::VarChar));
        assert_eq!(Family::of("BPCHAR"), Some(Family::Char));
        assert_eq!(Family::of("uuid"), Some(Family::Native(N::Uuid)));
        assert_eq!(Family::of("UUID"), Some(Family::Native(N::Uuid)));
        assert_eq!(Family::of("_int4"), Some(Family::Native(N::Arrays)));
        assert_eq!(
            Family::of("time with time zone"),
            Some(Family::Native(N::TimeTz))
        );
        for other in ["", "text", "LONGTEXT", "int4", "_", "__x", "ENUM", "mood"] {
            assert_eq!(Family::of(other), None, "{other}");
        }
    }
}
