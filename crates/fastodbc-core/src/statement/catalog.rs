//! Catalog functions (`SQLTables`, `SQLColumns`, ... `SQLGetTypeInfo`): each opens a result
//! set on the statement like a query, read through the same fetch path.

use super::Statement;
use crate::diagnostics::{Error, Result};
use crate::ffi;
use crate::link::CallKind;

// Option values of SQLStatistics and SQLSpecialColumns (sqlext.h).
const SQL_INDEX_UNIQUE: u16 = 0;
const SQL_INDEX_ALL: u16 = 1;
const SQL_QUICK: u16 = 0;
const SQL_ENSURE: u16 = 1;
const SQL_BEST_ROWID: u16 = 1;
const SQL_ROWVER: u16 = 2;
const SQL_SCOPE_TRANSACTION: u16 = 1;
const SQL_NO_NULLS: u16 = 0;
const SQL_NULLABLE: u16 = 1;

/// A catalog function and its options; its text arguments go to `Statement::catalog`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogFunction {
    /// (catalog, schema, table, table type)
    Tables,
    /// (catalog, schema, table, column)
    Columns,
    /// (catalog, schema, table)
    PrimaryKeys,
    /// (primary-key catalog, schema, table, foreign-key catalog, schema, table)
    ForeignKeys,
    /// (catalog, schema, table): indexes (only unique ones if `unique`) and table statistics
    /// (cardinality and pages only where readily available if `quick`).
    Statistics { unique: bool, quick: bool },
    /// (catalog, schema, table): the columns that identify a row (`SQL_BEST_ROWID`) or that
    /// change with every update (`row_version`, `SQL_ROWVER`), for a transaction's scope.
    SpecialColumns { row_version: bool, nullable: bool },
    /// (catalog, schema, procedure)
    Procedures,
    /// (catalog, schema, procedure, column)
    ProcedureColumns,
    /// No text arguments: the data types the source supports (`SQL_ALL_TYPES` = 0: all).
    TypeInfo { data_type: i16 },
}

impl CatalogFunction {
    /// The function pyodbc's cursor method `name` runs, with its integer `options` in the
    /// method's order; `None` for an unknown name.
    pub fn from_method(name: &str, options: &[i64]) -> Option<CatalogFunction> {
        let flag = |i: usize, default: bool| options.get(i).map_or(default, |v| *v != 0);
        Some(match name {
            "tables" => CatalogFunction::Tables,
            "columns" => CatalogFunction::Columns,
            "primaryKeys" => CatalogFunction::PrimaryKeys,
            "foreignKeys" => CatalogFunction::ForeignKeys,
            "statistics" => CatalogFunction::Statistics {
                unique: flag(0, false),
                quick: flag(1, true),
            },
            "rowIdColumns" | "rowVerColumns" => CatalogFunction::SpecialColumns {
                row_version: name == "rowVerColumns",
                nullable: flag(0, true),
            },
            "procedures" => CatalogFunction::Procedures,
            "procedureColumns" => CatalogFunction::ProcedureColumns,
            "getTypeInfo" => CatalogFunction::TypeInfo {
                data_type: i16::try_from(options.first().copied().unwrap_or(0)).ok()?,
            },
            _ => return None,
        })
    }
}

impl Statement {
    /// Runs a catalog function with its text arguments in ODBC's order (`None`: any).
    pub fn catalog(&mut self, function: CatalogFunction, args: &[Option<Vec<u16>>]) -> Result<()> {
        self.drop_result();
        self.on_link(CallKind::Query, |s| s.driver_catalog(function, args))
    }

    fn driver_catalog(
        &mut self,
        function: CatalogFunction,
        args: &[Option<Vec<u16>>],
    ) -> Result<()> {
        let mut given = [(std::ptr::null(), 0i16); 6];
        for (slot, arg) in given.iter_mut().zip(args) {
            if let Some(v) = arg {
                let len = i16::try_from(v.len()).map_err(|_| {
                    Error::Programming("a catalog argument is longer than 32,767 characters".into())
                })?;
                *slot = (v.as_ptr(), len);
            }
        }
        let [a, b, c, d, e, f] = given;
        let h = self.h;
        // SAFETY: argument buffers outlive the call; null pointers mean "any" per ODBC.
        let (ret, name) = unsafe {
            match function {
                CatalogFunction::Tables => (
                    ffi::SQLTablesW(h, a.0, a.1, b.0, b.1, c.0, c.1, d.0, d.1),
                    "SQLTablesW",
                ),
                CatalogFunction::Columns => (
                    ffi::SQLColumnsW(h, a.0, a.1, b.0, b.1, c.0, c.1, d.0, d.1),
                    "SQLColumnsW",
                ),
                CatalogFunction::PrimaryKeys => (
                    ffi::SQLPrimaryKeysW(h, a.0, a.1, b.0, b.1, c.0, c.1),
                    "SQLPrimaryKeysW",
                ),
                CatalogFunction::ForeignKeys => (
                    ffi::SQLForeignKeysW(
                        h, a.0, a.1, b.0, b.1, c.0, c.1, d.0, d.1, e.0, e.1, f.0, f.1,
                    ),
                    "SQLForeignKeysW",
                ),
                CatalogFunction::Statistics { unique, quick } => (
                    ffi::SQLStatisticsW(
                        h,
                        a.0,
                        a.1,
                        b.0,
                        b.1,
                        c.0,
                        c.1,
                        if unique {
                            SQL_INDEX_UNIQUE
                        } else {
                            SQL_INDEX_ALL
                        },
                        if quick { SQL_QUICK } else { SQL_ENSURE },
                    ),
                    "SQLStatisticsW",
                ),
                CatalogFunction::SpecialColumns {
                    row_version,
                    nullable,
                } => (
                    ffi::SQLSpecialColumnsW(
                        h,
                        if row_version {
                            SQL_ROWVER
                        } else {
                            SQL_BEST_ROWID
                        },
                        a.0,
                        a.1,
                        b.0,
                        b.1,
                        c.0,
                        c.1,
                        SQL_SCOPE_TRANSACTION,
                        if nullable { SQL_NULLABLE } else { SQL_NO_NULLS },
                    ),
                    "SQLSpecialColumnsW",
                ),
                CatalogFunction::Procedures => (
                    ffi::SQLProceduresW(h, a.0, a.1, b.0, b.1, c.0, c.1),
                    "SQLProceduresW",
                ),
                CatalogFunction::ProcedureColumns => (
                    ffi::SQLProcedureColumnsW(h, a.0, a.1, b.0, b.1, c.0, c.1, d.0, d.1),
                    "SQLProcedureColumnsW",
                ),
                CatalogFunction::TypeInfo { data_type } => {
                    (ffi::SQLGetTypeInfoW(h, data_type), "SQLGetTypeInfoW")
                }
            }
        };
        self.calls().check(ret, name).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_and_their_options() {
        assert_eq!(
            CatalogFunction::from_method("statistics", &[]),
            Some(CatalogFunction::Statistics {
                unique: false,
                quick: true
            })
        );
        assert_eq!(
            CatalogFunction::from_method("rowVerColumns", &[0]),
            Some(CatalogFunction::SpecialColumns {
                row_version: true,
                nullable: false
            })
        );
        assert_eq!(
            CatalogFunction::from_method("getTypeInfo", &[93]),
            Some(CatalogFunction::TypeInfo { data_type: 93 })
        );
        assert_eq!(
            CatalogFunction::from_method("getTypeInfo", &[1 << 20]),
            None
        );
        assert_eq!(CatalogFunction::from_method("nope", &[]), None);
    }
}
