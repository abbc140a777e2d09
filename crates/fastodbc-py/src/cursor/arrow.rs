//! The Arrow consumer's Python side: a cursor lends its statement to an `ArrowBatches` stream
//! (`fastodbc-arrow`), wrapped in `RecordBatchReader`, which Python iterates (pyarrow batches,
//! DB-API exceptions) or hands whole to pyarrow, polars, DuckDB or nanoarrow as an Arrow C
//! stream (PyCapsule, through pyo3-arrow) that they may read on their own threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use fastodbc_arrow::source::{with_source, Described};
use fastodbc_arrow::{
    ArrowBatches, ArrowColumn, BatchLimits, NarrowDecoder, SessionZone, TypeOptions,
};
use fastodbc_core::types::text::to_utf16;
use fastodbc_core::{
    ffi, Blocking, CatalogFunction, Error, MemoryBudget, Reader, Statement, StatementLoan,
    ValueKind,
};
use pyo3::exceptions::{PyImportError, PyStopIteration};
use pyo3::prelude::*;

use crate::gil_turns;
use pyo3::types::{PyBytes, PyCapsule};
use pyo3_arrow::{PyRecordBatchReader, PySchema, PyTable};

use super::shared::{closed_cursor, CursorShared};
use super::Cursor;
use crate::cancel::cancelled;
use crate::connection::Connection;
use crate::errors;
use crate::lock::lock;

/// Narrow text in a Python codec (`setdecoding(..., encoding=...)`), decoded by Python as the
/// rows path decodes it; the stream takes the GIL for it.
struct PythonCodecs;

impl NarrowDecoder for PythonCodecs {
    fn decode(&self, codec: &str, bytes: &[u8]) -> Result<String, String> {
        Python::with_gil(|py| {
            PyBytes::new(py, bytes)
                .call_method1("decode", (codec,))
                .and_then(|s| s.extract::<String>())
                .map_err(|e| format!("not valid {codec} text: {e}"))
        })
    }
}

/// The session's time zone, read with the driver's query (`Strategy::session_zone_sql`) on a
/// statement of its own (the cursor's is in the middle of its result), from a thread that
/// does not hold the GIL. Read when a reader starts: a zone set between the query and the
/// reader (on another cursor) is the one its values are read in.
fn session_zone(connection: &Connection, sql: &str) -> Result<SessionZone, Error> {
    let guard = connection
        .shared
        .conn
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let conn = guard
        .as_ref()
        .ok_or_else(|| Error::Programming("Attempt to use a closed connection.".into()))?;
    let mut stmt = Statement::new(conn)?;
    // Bounded as the cursor's own statements are (`Connection.timeout`).
    let timeout = connection.timeout_value();
    if timeout > 0 {
        stmt.set_query_timeout(timeout)?;
    }
    stmt.exec_direct(&to_utf16(sql))?;
    let rows = stmt.text_rows()?;
    let setting = rows
        .into_iter()
        .next()
        .and_then(|r| r.into_iter().next())
        .flatten()
        .unwrap_or_default();
    SessionZone::parse(&setting).ok_or_else(|| {
        Error::Data(format!(
            "the session's time zone {setting:?} is not one fastodbc reads zoned timestamps \
             in (an IANA name such as 'Europe/Paris', or a fixed offset): SET TIME ZONE to one \
             before the query"
        ))
    })
}

/// A base table of vague columns: (schema, table), and its columns as (result column index,
/// base column name).
type BaseTable = ((String, String), Vec<(usize, String)>);

/// The database's type name of each of the result's `n` columns: `SQL_DESC_TYPE_NAME`, or
/// where the driver's answer names no type (`Strategy::catalog_type_names`) the catalog's
/// TYPE_NAME of the column's base table column, one `SQLColumns` per table on a statement of
/// its own. A column of no base table, or a catalog that fails, keeps the driver's answer:
/// what is carried is then the Arrow type alone.
fn source_type_names(stmt: &mut Statement, connection: &Connection, n: usize) -> Vec<String> {
    let vague = stmt.strategy().catalog_type_names;
    let mut names: Vec<String> = (0..n)
        .map(|i| stmt.column_type_name(i).unwrap_or_default())
        .collect();
    let mut tables: Vec<BaseTable> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if !vague.contains(&name.to_ascii_lowercase().as_str()) {
            continue;
        }
        let text = |s: &mut Statement, f| s.column_text(i, f).unwrap_or_default();
        let table = text(stmt, ffi::SQL_DESC_BASE_TABLE_NAME);
        let column = text(stmt, ffi::SQL_DESC_BASE_COLUMN_NAME);
        if table.is_empty() || column.is_empty() {
            continue;
        }
        let key = (text(stmt, ffi::SQL_DESC_SCHEMA_NAME), table);
        match tables.iter_mut().find(|(k, _)| *k == key) {
            Some((_, cols)) => cols.push((i, column)),
            None => tables.push((key, vec![(i, column)])),
        }
    }
    for ((schema, table), cols) in tables {
        let Ok(found) = catalog_columns(connection, &schema, &table) else {
            continue;
        };
        for (i, column) in cols {
            if let Some((_, type_name)) = found.iter().find(|(c, _)| *c == column) {
                if let Some(slot) = names.get_mut(i) {
                    slot.clone_from(type_name);
                }
            }
        }
    }
    names
}

/// (column name, TYPE_NAME) of table `table`'s columns (`SQLColumns`; names compared exactly,
/// since `_` is a pattern there).
fn catalog_columns(
    connection: &Connection,
    schema: &str,
    table: &str,
) -> Result<Vec<(String, String)>, Error> {
    let guard = connection
        .shared
        .conn
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let conn = guard
        .as_ref()
        .ok_or_else(|| Error::Programming("Attempt to use a closed connection.".into()))?;
    let mut stmt = Statement::new(conn)?;
    let timeout = connection.timeout_value();
    if timeout > 0 {
        stmt.set_query_timeout(timeout)?;
    }
    let schema = (!schema.is_empty()).then(|| to_utf16(schema));
    stmt.catalog(
        CatalogFunction::Columns,
        &[None, schema, Some(to_utf16(table)), None],
    )?;
    // SQLColumns: TABLE_NAME 3rd, COLUMN_NAME 4th, TYPE_NAME 6th.
    Ok(stmt
        .text_rows()?
        .into_iter()
        .filter(|r| r.get(2).and_then(|t| t.as_deref()) == Some(table))
        .filter_map(|r| {
            let column = r.get(3).cloned().flatten()?;
            let type_name = r.get(5).cloned().flatten()?;
            Some((column, type_name))
        })
        .collect())
}

/// The stream with what its statement needs alive: the cursor's shared state (its connection
/// closes it through that) and the connection itself.
struct CursorBatches {
    batches: ArrowBatches,
    _cursor: Arc<CursorShared>,
    _connection: Py<Connection>,
}

impl Iterator for CursorBatches {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.batches.next()
    }
}

impl RecordBatchReader for CursorBatches {
    fn schema(&self) -> SchemaRef {
        self.batches.schema()
    }
}

/// A result being read as Arrow record batches (`Cursor.fetch_record_batch`).
#[pyclass(module = "fastodbc._native", name = "RecordBatchReader", frozen)]
pub struct ArrowReader {
    stream: Mutex<Option<CursorBatches>>,
    schema: SchemaRef,
    /// `ArrowBatches::rows_read`: read without the stream's lock, which the reading thread
    /// holds while it builds a batch.
    rows_read: Arc<AtomicUsize>,
}

/// `batches` as a `pyarrow.RecordBatchReader` (`RecordBatchReader.from_stream`): `pa.table`
/// and `pa.record_batch` would first ask whether the object is a pandas DataFrame, and so import
/// pandas (a quarter of a second) in a process that never uses it.
fn pyarrow_batches(
    py: Python<'_>,
    batches: Vec<RecordBatch>,
    schema: SchemaRef,
) -> PyResult<Bound<'_, PyAny>> {
    let table = Bound::new(py, PyTable::try_new(batches, schema)?)?;
    pyarrow(py, "a pyarrow result")?
        .getattr("RecordBatchReader")?
        .call_method1("from_stream", (table,))
}

fn pyarrow<'py>(py: Python<'py>, what: &str) -> PyResult<Bound<'py, PyModule>> {
    py.import("pyarrow").map_err(|_| {
        PyImportError::new_err(format!(
            "{what} needs pyarrow: pip install fastodbc[arrow] (the Arrow C stream, \
             __arrow_c_stream__, needs nothing)"
        ))
    })
}

impl ArrowReader {
    /// The next batch, read with the GIL released; `None` at the end.
    fn next_batch(&self, py: Python<'_>) -> PyResult<Option<RecordBatch>> {
        let mut guard = lock(py, &self.stream);
        let Some(stream) = guard.as_mut() else {
            return Ok(None);
        };
        let next = gil_turns::detached(py, || stream.batches.next_batch());
        match next {
            Ok(Some(batch)) => Ok(Some(batch)),
            Ok(None) => {
                let done = guard.take();
                gil_turns::detached(py, || drop(done));
                Ok(None)
            }
            Err(e) => {
                let done = guard.take();
                gil_turns::detached(py, || drop(done));
                Err(errors::to_py(py, e))
            }
        }
    }
}

#[pymethods]
impl ArrowReader {
    /// The schema as an Arrow C schema capsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        Ok(pyo3_arrow::ffi::to_schema_pycapsule(
            py,
            self.schema.as_ref(),
        )?)
    }

    /// The rest of the result as an Arrow C stream capsule; the reader is used up by it.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Some(stream) = lock(py, &self.stream).take() else {
            return Err(errors::programming(
                py,
                "The reader was read to its end, closed or exported already.",
            ));
        };
        let exported = Bound::new(py, PyRecordBatchReader::new(Box::new(stream)))?;
        exported.call_method1("__arrow_c_stream__", (requested_schema,))
    }

    /// Rows read from the result so far, those of the batch being built among them (it moves
    /// block by block while another thread waits for a batch: a progress display's count).
    #[getter]
    fn rows_read(&self) -> usize {
        self.rows_read.load(Ordering::Relaxed)
    }

    /// The result's schema as a `pyarrow.Schema`.
    #[getter]
    fn schema(&self, py: Python<'_>) -> PyResult<PyObject> {
        pyarrow(py, "RecordBatchReader.schema")?;
        PySchema::new(self.schema.clone()).to_pyarrow(py)
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        pyarrow(py, "iterating a RecordBatchReader")?;
        match self.next_batch(py)? {
            Some(batch) => {
                let reader = pyarrow_batches(py, vec![batch], self.schema.clone())?;
                Ok(Some(reader.call_method0("read_next_batch")?.unbind()))
            }
            None => Ok(None),
        }
    }

    /// The next batch as a `pyarrow.RecordBatch`; StopIteration at the end.
    fn read_next_batch(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.__next__(py)?
            .ok_or_else(|| PyStopIteration::new_err(()))
    }

    /// The rest of the result as a `pyarrow.Table`.
    fn read_all(&self, py: Python<'_>) -> PyResult<PyObject> {
        pyarrow(py, "RecordBatchReader.read_all")?;
        let mut batches = Vec::new();
        while let Some(batch) = self.next_batch(py)? {
            batches.push(batch);
        }
        let reader = pyarrow_batches(py, batches, self.schema.clone())?;
        Ok(reader.call_method0("read_all")?.unbind())
    }

    /// Stops reading: the cursor's result is closed, the cursor usable again.
    fn close(&self, py: Python<'_>) {
        let stream = lock(py, &self.stream).take();
        gil_turns::detached(py, || {
            if let Some(mut stream) = stream {
                stream.batches.close();
            }
        });
    }

    /// True once the reader was read to its end, closed, or exported as a stream.
    #[getter]
    fn closed(&self, py: Python<'_>) -> bool {
        lock(py, &self.stream).is_none()
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __exit__(
        &self,
        py: Python<'_>,
        _exc_type: Option<Bound<'_, PyAny>>,
        _exc: Option<Bound<'_, PyAny>>,
        _tb: Option<Bound<'_, PyAny>>,
    ) {
        self.close(py);
    }
}

impl Cursor {
    /// Lends the statement of the current result to a new Arrow reader, from the first row not
    /// served as a Python row.
    pub(super) fn arrow_reader(
        &self,
        py: Python<'_>,
        limits: BatchLimits,
    ) -> PyResult<ArrowReader> {
        let mut guard = self.state(py)?;
        let st = &mut *guard;
        let no_results = || errors::programming(py, "No results.  Previous SQL was not a query.");
        st.take_back(py);
        let Some(view) = st.result.as_mut() else {
            return Err(no_results());
        };
        // Rows converted ahead but not served yet, and a failed one, are read again as Arrow.
        let unserved = view.ready.len() + usize::from(view.failed.is_some());
        let Some(mut stream) = st.stmt.take() else {
            return Err(closed_cursor(py));
        };
        let connection = self.conn();
        let described = gil_turns::detached(py, || {
            let stmt = stream.statement(&Blocking);
            let mut opts = TypeOptions {
                sizes_unreliable: stmt.strategy().plan.sizes_unreliable,
                narrow: Some(Arc::new(PythonCodecs)),
                session_zone: None,
                numeric_as_text: stmt.strategy().numeric_as_text,
                time_as_duration: stmt.strategy().time_as_duration,
            };
            let plans = match stmt.result.as_mut() {
                Some(rs) => {
                    // The blocks fetched from now on are read column-wise: nothing to
                    // prepare for Python rows, and a value a column's type can't hold is
                    // refused (the plan for typed columns, before the first fetch).
                    rs.clear_consumer();
                    rs.plan_for(Reader::TypedColumns);
                    rs.plan.columns.clone()
                }
                None => return None,
            };
            if let Some(sql) = stmt.strategy().session_zone_sql {
                if plans.iter().any(|p| p.zoned) {
                    match session_zone(connection, sql) {
                        Ok(zone) => opts.session_zone = Some(zone),
                        Err(e) => return Some(Err(e)),
                    }
                }
            }
            let type_names = source_type_names(stmt, connection, plans.len());
            Some(Ok(plans
                .iter()
                .enumerate()
                .map(|(i, plan)| {
                    let int = plan.kind == ValueKind::Int && plan.codec.is_none();
                    let unsigned = int && stmt.column_unsigned(i).unwrap_or(false);
                    let mut column = ArrowColumn::for_plan(plan, unsigned, &opts);
                    // The source column's facts, for a table made from this result.
                    let described = Described {
                        desc: &plan.desc,
                        kind: plan.kind,
                        type_name: type_names.get(i).map_or("", String::as_str),
                        sizes_reliable: !opts.sizes_unreliable,
                        unknown_text_size: stmt.strategy().unknown_text_size,
                    };
                    column.field = with_source(column.field, &described);
                    column
                })
                .collect::<Vec<_>>()))
        });
        let columns = match described {
            Some(Ok(columns)) => columns,
            Some(Err(e)) => {
                st.stmt = Some(stream);
                return Err(errors::to_py(py, e));
            }
            None => {
                st.stmt = Some(stream);
                return Err(no_results());
            }
        };
        view.ready.clear();
        view.held = 0;
        view.failed = None;
        stream.unread(unserved);
        let loan = Arc::new(StatementLoan::new(stream));
        st.loan = Some(loan.clone());
        let shared = self.shared.clone();
        // Closed or cancelled from another thread: the reader stops at its next block, as
        // iteration does (a close waits for the batch being filled otherwise).
        let interrupt = Box::new(move || {
            if shared.is_closed() {
                Some(Error::Programming("Attempt to use a closed cursor.".into()))
            } else if shared.cancel.requested() {
                Some(cancelled())
            } else {
                None
            }
        });
        let batches = ArrowBatches::new(loan, columns, limits).with_interrupt(interrupt);
        let schema = batches.schema();
        let rows_read = batches.rows_read();
        Ok(ArrowReader {
            stream: Mutex::new(Some(CursorBatches {
                batches,
                _cursor: self.shared.clone(),
                _connection: self.connection.clone_ref(py),
            })),
            schema,
            rows_read,
        })
    }
}

/// The limits of a batch: the budget's where not given; zero is refused.
pub(super) fn limits(
    py: Python<'_>,
    batch_rows: Option<usize>,
    batch_bytes: Option<usize>,
    budget: MemoryBudget,
) -> PyResult<BatchLimits> {
    let default = BatchLimits::for_budget(budget);
    if batch_rows == Some(0) || batch_bytes == Some(0) {
        return Err(errors::programming(
            py,
            "batch_rows and batch_bytes must be positive",
        ));
    }
    Ok(BatchLimits {
        rows: batch_rows.unwrap_or(default.rows),
        bytes: batch_bytes.unwrap_or(default.bytes),
    })
}
