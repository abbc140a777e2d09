//! `executemany`: one statement run for many parameter rows, sent chunk by chunk the way the
//! driver's `Strategy` chooses. A single-row INSERT may go compiled once (sqliteodbc), as
//! column arrays or multi-row VALUES statements (psqlODBC); everything else goes as parameter
//! arrays of rows of the same kinds (`params::split_runs`), or row by row (always a statement
//! without markers). Every parameter array must run all its sets
//! (`statement::execute::array_outcome`): a driver that runs fewer is an error.
//!
//! The caller converts its rows in chunks of at most `ExecuteMany::chunk_rows` rows and
//! `PARAM_CHUNK_BYTES` (`approx_bytes`), so the memory an executemany holds stays bounded,
//! and hands each chunk to `ExecuteMany::send`.

use crate::array_insert::{self, ArrayInsert};
use crate::compiled_insert;
use crate::diagnostics::{DiagRecord, Result};
use crate::driver::InsertStrategy;
use crate::params::{split_runs, BindOptions, NullType, ParamBatch, ParamValue};
use crate::sqlscan::InsertValues;
use crate::statement::Statement;
use crate::types::text::to_utf16;

/// Rows converted from the caller's objects before they are sent as one parameter array;
/// also the largest array. Bounds executemany's extra memory to this many rows (or
/// `PARAM_CHUNK_BYTES`).
pub const PARAM_CHUNK_ROWS: usize = 1000;
/// Byte budget of one chunk of converted parameter rows (`approx_bytes`), unless the caller
/// gives its own budget's share (`MemoryBudget::param_chunk_bytes`).
pub const PARAM_CHUNK_BYTES: usize = crate::budget::MemoryBudget::DEFAULT.param_chunk_bytes();
/// Rows per statement of a column-array INSERT (`ArrayInsert`): its cost per statement is one
/// round trip, so chunks are larger; `PARAM_CHUNK_BYTES` still bounds them. Extra memory is
/// then the converted rows plus their array text, about twice the byte budget.
pub const ARRAY_CHUNK_ROWS: usize = 10_000;

/// About the memory a converted parameter takes, counted against `PARAM_CHUNK_BYTES`.
pub fn approx_bytes(v: &ParamValue) -> usize {
    match v {
        ParamValue::Text(s) => s.len() * 2 + 8,
        ParamValue::Bytes(b) => b.len() + 8,
        ParamValue::Decimal { text, .. } => text.len() + 8,
        _ => 16,
    }
}

/// What runs around each execution of an executemany (fastodbc-py: the window in which
/// `Cursor.cancel()` may interrupt it, refusing to start on a cursor closed or cancelled).
pub trait ExecutionGate {
    /// Runs `execute`, one execution of the statement, or fails instead.
    fn execute<T>(&self, execute: impl FnOnce() -> Result<T>) -> Result<T>;
}

/// executemany's `rowcount`: the sum of its statements' counts, -1 when none was reported or
/// any is unknown.
#[derive(Debug, Default)]
struct RowTotal {
    total: i64,
    counted: bool,
    unknown: bool,
}

impl RowTotal {
    /// A statement's count (-1: the driver didn't say).
    fn add(&mut self, n: i64) {
        if n >= 0 {
            self.total += n;
            self.counted = true;
        }
    }

    fn value(&self) -> i64 {
        if self.counted && !self.unknown {
            self.total
        } else {
            -1
        }
    }
}

/// How the rows of each chunk are sent.
enum Route {
    /// One column-array INSERT per chunk (`InsertStrategy::ColumnArrays`).
    ColumnArrays(ArrayInsert),
    /// Multi-row VALUES statements (`InsertValues`); the driver's type for each marker types
    /// the NULLs, since every value is then a parameter of its own.
    Values {
        shape: InsertValues,
        marker_types: Vec<NullType>,
        /// Rows of the VALUES statement the handle holds prepared (0: none of them).
        prepared_rows: usize,
    },
    /// The statement as given, with parameter arrays of up to `max_rows` rows.
    ParamArrays {
        max_rows: usize,
        /// The driver's type of each marker NULL in every row of a run, asked once.
        null_types: Vec<Option<NullType>>,
    },
}

/// A chunk of rows made ready to send by an `Encoder`: on the column-array route, the array
/// literals already written.
pub struct Encoded(EncodedRows);

enum EncodedRows {
    ColumnArrays(Vec<ParamValue>),
    Rows(Vec<Vec<ParamValue>>),
}

/// The part of sending a chunk that needs no statement: writing a column-array INSERT's
/// literals. Apart from `ExecuteMany` so that a caller can make the next chunk ready on
/// another thread while the driver and server run the current one.
#[derive(Debug, Clone)]
pub struct Encoder(Option<ArrayInsert>);

impl Encoder {
    /// Makes a chunk of rows ready for `ExecuteMany::send_encoded`.
    pub fn encode(&self, rows: Vec<Vec<ParamValue>>) -> Encoded {
        Encoded(match &self.0 {
            Some(plan) => EncodedRows::ColumnArrays(plan.params(&rows)),
            None => EncodedRows::Rows(rows),
        })
    }
}

/// One executemany on a statement: prepared by `start`, fed chunks of rows by `send` (or
/// `send_encoded`), its row count read by `finish`.
pub struct ExecuteMany<'s> {
    stmt: &'s mut Statement,
    opts: BindOptions,
    route: Route,
    /// `total_changes()` before the rows of an INSERT compiled once (`compiled_insert`): its
    /// row count is then the difference after them.
    changes_before: Option<i64>,
    /// `Strategy::binary_rows_one_by_one`.
    binary_rows_one_by_one: bool,
    /// `Strategy::array_row_count_unknown`.
    array_row_count_unknown: bool,
    rowcount: RowTotal,
    /// SQL_SUCCESS_WITH_INFO records of every execution so far.
    messages: Vec<DiagRecord>,
}

/// Prepares the INSERT compiled once (see `compiled_insert`), when it fits; its
/// `total_changes()` before any row.
fn compile_once(stmt: &mut Statement, sql: &str, markers: usize, opts: BindOptions) -> Option<i64> {
    InsertValues::parse(sql).filter(|s| s.markers == markers && s.target.is_some())?;
    if !compiled_insert::applies(stmt, sql, markers, opts) {
        return None;
    }
    let before = compiled_insert::total_changes(stmt)?;
    stmt.reset();
    // A SQLite too old for a CTE before INSERT: the plain statement.
    let prepared = stmt.prepare(&to_utf16(&compiled_insert::sql(sql)));
    prepared.ok().map(|_| before)
}

/// Binds `batch` and executes it inside `gate`: the rows it counted.
fn execute(
    stmt: &mut Statement,
    gate: &impl ExecutionGate,
    batch: Result<ParamBatch>,
) -> Result<i64> {
    let batch = batch?;
    gate.execute(|| stmt.execute_batch(batch))
}

impl<'s> ExecuteMany<'s> {
    /// Prepares `sql` on `stmt` the way its driver's strategy sends many rows. `markers`: the
    /// statement's parameter markers (None: not scanned); `fast`: parameter arrays, else row
    /// by row (`fast_executemany`); `rows_hint`: the number of rows, when known (few rows do
    /// not pay for a catalog query or a compiled-once check). Fails only where preparing the
    /// statement as given fails.
    pub fn start(
        stmt: &'s mut Statement,
        sql: &str,
        markers: Option<usize>,
        opts: BindOptions,
        fast: bool,
        rows_hint: Option<usize>,
    ) -> Result<ExecuteMany<'s>> {
        let strategy = stmt.strategy();
        let max_rows = if fast { PARAM_CHUNK_ROWS } else { 1 };
        // Rows one at a time bind dates natively: the driver keeps nothing of those.
        let opts = BindOptions {
            temporal_as_varchar: fast && strategy.temporal_arrays_as_text,
            ..opts
        };
        let few_rows = rows_hint.is_some_and(|n| n < array_insert::MIN_ROWS);
        let compiled = strategy.insert == InsertStrategy::CompiledOnce && !few_rows;
        let changes_before = match (compiled, markers) {
            (true, Some(m)) => compile_once(stmt, sql, m, opts),
            _ => None,
        };
        if changes_before.is_none() {
            stmt.reset();
            stmt.prepare(&to_utf16(sql))?;
        }
        let rewrites = matches!(
            strategy.insert,
            InsertStrategy::MultiRowValues | InsertStrategy::ColumnArrays
        );
        let rewrite = match (max_rows > 1 && rewrites, markers) {
            (true, Some(m)) => InsertValues::parse(sql).filter(|s| s.markers == m),
            _ => None,
        };
        let marker_types: Vec<NullType> = match &rewrite {
            Some(shape) => (0..shape.markers).map(|i| stmt.describe_param(i)).collect(),
            None => Vec::new(),
        };
        let target = rewrite
            .as_ref()
            .and_then(|shape| shape.target.as_ref().map(|t| (t, shape.markers)))
            .filter(|_| !few_rows && strategy.insert == InsertStrategy::ColumnArrays);
        let arrays =
            target.and_then(|(target, markers)| ArrayInsert::prepare(stmt, target, markers, opts));
        // After the catalog query the statement holds it or the array INSERT: the VALUES path
        // then prepares its own text before its first chunk.
        let prepared_rows = if target.is_some() { 0 } else { 1 };
        let route = match (arrays, rewrite) {
            (Some(plan), _) => Route::ColumnArrays(plan),
            (None, Some(shape)) => Route::Values {
                shape,
                marker_types,
                prepared_rows,
            },
            (None, None) => Route::ParamArrays {
                max_rows,
                null_types: Vec::new(),
            },
        };
        Ok(ExecuteMany {
            stmt,
            opts,
            route,
            changes_before,
            binary_rows_one_by_one: strategy.binary_rows_one_by_one,
            array_row_count_unknown: strategy.array_row_count_unknown,
            rowcount: RowTotal::default(),
            messages: Vec::new(),
        })
    }

    /// The most rows a chunk given to `send` should hold.
    pub fn chunk_rows(&self) -> usize {
        match self.route {
            Route::ColumnArrays(_) => ARRAY_CHUNK_ROWS,
            _ => PARAM_CHUNK_ROWS,
        }
    }

    /// What makes chunks ready for `send_encoded`, for use on any thread.
    pub fn encoder(&self) -> Encoder {
        match &self.route {
            Route::ColumnArrays(plan) => Encoder(Some(plan.clone())),
            _ => Encoder(None),
        }
    }

    /// `send` for a chunk made ready by this executemany's `encoder`.
    pub fn send_encoded(&mut self, chunk: Encoded, gate: &impl ExecutionGate) -> Result<()> {
        match chunk.0 {
            EncodedRows::ColumnArrays(arrays) => self.send_arrays(arrays, gate),
            EncodedRows::Rows(rows) => self.send(&rows, gate),
        }
    }

    /// Executes the column-array INSERT for one chunk's array literals.
    fn send_arrays(&mut self, arrays: Vec<ParamValue>, gate: &impl ExecutionGate) -> Result<()> {
        let batch = ParamBatch::build(&[arrays], self.opts, &[]);
        let r = execute(self.stmt, gate, batch);
        self.messages.extend(self.stmt.messages.iter().cloned());
        self.rowcount.add(r?);
        Ok(())
    }

    /// Executes the statement for a chunk of rows, each with one value per marker, every
    /// execution inside `gate`. Stops at the first error.
    pub fn send(&mut self, rows: &[Vec<ParamValue>], gate: &impl ExecutionGate) -> Result<()> {
        if let Route::ColumnArrays(plan) = &self.route {
            let arrays = plan.params(rows);
            return self.send_arrays(arrays, gate);
        }
        let stmt = &mut *self.stmt;
        let opts = self.opts;
        match &mut self.route {
            // Sent above.
            Route::ColumnArrays(_) => {}
            Route::Values {
                shape,
                marker_types,
                prepared_rows,
            } => {
                let per_statement = shape.rows_per_statement(PARAM_CHUNK_ROWS);
                for part in rows.chunks(per_statement) {
                    let flat: Vec<ParamValue> = part.iter().flatten().cloned().collect();
                    let types: Vec<NullType> = marker_types
                        .iter()
                        .cycle()
                        .take(flat.len())
                        .copied()
                        .collect();
                    let text =
                        (part.len() != *prepared_rows).then(|| to_utf16(&shape.sql(part.len())));
                    let prepared = match &text {
                        Some(text) => {
                            stmt.reset();
                            stmt.prepare(text)
                        }
                        None => Ok(()),
                    };
                    let r = prepared.and_then(|_| {
                        execute(stmt, gate, ParamBatch::build(&[flat], opts, &types))
                    });
                    *prepared_rows = part.len();
                    self.messages.extend(stmt.messages.iter().cloned());
                    self.rowcount.add(r?);
                }
            }
            Route::ParamArrays {
                max_rows,
                null_types,
            } => {
                // SQLite's driver mangles binary parameter arrays: rows with bytes one by one.
                let has_bytes = || {
                    rows.iter()
                        .any(|r| r.iter().any(|v| matches!(v, ParamValue::Bytes(_))))
                };
                // A statement without markers runs once per row, as pyodbc runs it: a driver
                // may run it once whatever the array's size
                // (`Quirks::ignores_paramset_without_markers`).
                let markerless = rows.first().is_some_and(Vec::is_empty);
                let max_rows = if markerless || (self.binary_rows_one_by_one && has_bytes()) {
                    1
                } else {
                    *max_rows
                };
                for run in split_runs(rows, max_rows) {
                    let part = &rows[run];
                    let width = part.first().map_or(0, Vec::len);
                    if null_types.len() < width {
                        null_types.resize(width, None);
                    }
                    // Columns NULL in every row of the run: the driver's type of the marker,
                    // asked once.
                    for (c, slot) in null_types.iter_mut().enumerate().take(width) {
                        if slot.is_none()
                            && part
                                .iter()
                                .all(|r| matches!(r.get(c), Some(ParamValue::Null)))
                        {
                            *slot = Some(stmt.describe_param(c));
                        }
                    }
                    let described: Vec<NullType> = null_types.iter().map(|t| t.flatten()).collect();
                    let array = part.len() > 1;
                    let r = execute(stmt, gate, ParamBatch::build(part, opts, &described));
                    self.messages.extend(stmt.messages.iter().cloned());
                    let n = r?;
                    if array && self.array_row_count_unknown {
                        // The driver counted only the array's last parameter set: unknown.
                        self.rowcount.unknown = true;
                    } else {
                        self.rowcount.add(n);
                    }
                }
            }
        }
        Ok(())
    }

    /// SQL_SUCCESS_WITH_INFO records of every execution so far, in order.
    pub fn messages(&self) -> &[DiagRecord] {
        &self.messages
    }

    /// The rows the executemany changed, -1 when not known.
    pub fn finish(self) -> i64 {
        match self.changes_before {
            Some(before) => {
                compiled_insert::total_changes(self.stmt).map_or(-1, |after| after - before)
            }
            None => self.rowcount.value(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_total_is_unknown_unless_every_count_is_known() {
        let mut t = RowTotal::default();
        assert_eq!(t.value(), -1);
        t.add(-1);
        assert_eq!(t.value(), -1);
        t.add(3);
        t.add(-1);
        t.add(4);
        assert_eq!(t.value(), 7);
        t.unknown = true;
        assert_eq!(t.value(), -1);
    }

    #[test]
    fn chunk_bytes_count_text_as_utf16() {
        assert_eq!(approx_bytes(&ParamValue::Text("abc".into())), 14);
        assert_eq!(approx_bytes(&ParamValue::Bytes(vec![0; 10])), 18);
        assert_eq!(approx_bytes(&ParamValue::Int(1)), 16);
        assert_eq!(approx_bytes(&ParamValue::Null), 16);
    }
}
