//! `Cursor._ingest`: an Arrow input loaded into a table by `fastodbc_arrow::ingest::Load`,
//! with the GIL released while values are converted and sent. The DB-API side (modes, the
//! CREATE TABLE, the transaction) is `fastodbc.ingest`.

use std::sync::{Arc, Mutex};

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use fastodbc_arrow::ingest::{
    arrow_type_text, batch_from_c_array, create_column, describe_target, plan_columns,
    AlignedStream, CreateType, Load, Nan, WriteOptions,
};
use fastodbc_arrow::source::SourceColumn;
use fastodbc_core::driver::{NameLimit, NameUnit, Server};
use fastodbc_core::{Error, Result};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::gil_turns;
use pyo3::types::{PyCapsule, PyIterator};

use super::{message_tuples, Cursor};
use crate::errors::{self, IntoPyResult};

/// Where a load's record batches come from.
enum Batches {
    /// An Arrow C stream, read with the GIL released (a producer that needs Python, such as
    /// pyarrow over a generator, takes the GIL itself).
    Stream(AlignedStream),
    /// Python objects with `__arrow_c_array__`, pulled with the GIL; `first` was pulled to
    /// learn the schema.
    Objects {
        first: Option<RecordBatch>,
        rest: Option<Py<PyIterator>>,
    },
}

impl Batches {
    /// The next batch; batch `index` (counted from 1) for messages. A Python exception the
    /// caller's iterator raised (even KeyboardInterrupt) is kept in `raised`, to be raised
    /// unchanged once the load is rolled back, as executemany does.
    fn next(
        &mut self,
        schema: &SchemaRef,
        index: usize,
        raised: &mut Option<PyErr>,
    ) -> Result<Option<RecordBatch>> {
        match self {
            Batches::Stream(reader) => reader
                .next()
                .transpose()
                .map_err(|e| Error::Data(format!("reading the input: {e}"))),
            Batches::Objects { first, rest } => {
                if let Some(b) = first.take() {
                    return Ok(Some(b));
                }
                let Some(rest) = rest else { return Ok(None) };
                let batch = Python::with_gil(|py| -> PyResult<Option<RecordBatch>> {
                    match rest.bind(py).clone().next() {
                        None => Ok(None),
                        Some(item) => Ok(Some(batch_of(&item?)?)),
                    }
                })
                .map_err(|e| {
                    let message = format!("reading input batch {index}: {e}");
                    *raised = Some(e);
                    Error::Data(message)
                })?;
                if let Some(b) = &batch {
                    if b.schema().fields() != schema.fields() {
                        return Err(Error::Data(format!(
                            "input batch {index} has another schema than the first: {} against {}",
                            b.schema(),
                            schema
                        )));
                    }
                }
                Ok(batch)
            }
        }
    }
}

/// The input of a load: record batches of one schema, from anything with
/// `__arrow_c_stream__` or `__arrow_c_array__`, or an iterable of record batches. Read once.
#[pyclass(frozen, module = "fastodbc._native", name = "IngestSource")]
pub struct IngestSource {
    schema: SchemaRef,
    batches: Mutex<Option<Batches>>,
}

#[pymethods]
impl IngestSource {
    #[new]
    fn new(data: &Bound<'_, PyAny>) -> PyResult<IngestSource> {
        let py = data.py();
        let (schema, batches) = if data.hasattr("__arrow_c_stream__")? {
            let capsule = data.call_method0("__arrow_c_stream__")?;
            let capsule = capsule.downcast::<PyCapsule>()?;
            check_capsule(capsule, c"arrow_array_stream")?;
            // SAFETY: an "arrow_array_stream" capsule holds an FFI_ArrowArrayStream; it is moved
            // out, leaving a released stream for the capsule's destructor.
            let stream = unsafe { FFI_ArrowArrayStream::from_raw(capsule.pointer() as *mut _) };
            let reader = AlignedStream::try_new(stream)
                .map_err(|e| PyTypeError::new_err(format!("reading the input's stream: {e}")))?;
            (reader.schema(), Batches::Stream(reader))
        } else if data.hasattr("__arrow_c_array__")? {
            let batch = batch_of(data)?;
            let schema = batch.schema();
            let batches = Batches::Objects {
                first: Some(batch),
                rest: None,
            };
            (schema, batches)
        } else {
            let rest = data.try_iter().map_err(|_| {
                errors::programming(
                    py,
                    "ingest takes an object with __arrow_c_stream__ or __arrow_c_array__ \
                     (a pyarrow Table, RecordBatch or RecordBatchReader, a polars DataFrame, \
                     ...) or an iterable of record batches",
                )
            })?;
            let Some(first) = rest.clone().next() else {
                return Err(errors::programming(
                    py,
                    "ingest was given no record batch: the input's schema is unknown",
                ));
            };
            let batch = batch_of(&first?)?;
            let schema = batch.schema();
            let batches = Batches::Objects {
                first: Some(batch),
                rest: Some(rest.unbind()),
            };
            (schema, batches)
        };
        Ok(IngestSource {
            schema,
            batches: Mutex::new(Some(batches)),
        })
    }

    /// One `IngestField` per input column, its `create` the column `create` makes for it on
    /// the server `SQL_DBMS_NAME` / `SQL_DBMS_VER` name.
    #[pyo3(signature = (dbms_name = "", dbms_version = ""))]
    fn fields(
        &self,
        py: Python<'_>,
        dbms_name: &str,
        dbms_version: &str,
    ) -> PyResult<Vec<IngestField>> {
        let server = Server::detect(dbms_name, dbms_version);
        self.schema
            .fields()
            .iter()
            .map(|f| {
                let (create, create_error) = match create_column(f, &server) {
                    Ok(t) => (Some(Py::new(py, CreateColumn::from(t))?), None),
                    Err(why) => (None, Some(why)),
                };
                Ok(IngestField {
                    name: f.name().clone(),
                    arrow_type: arrow_type_text(f.data_type()),
                    // NOT NULL: the field's flag, or its source column's (`fastodbc.not_null`).
                    nullable: f.is_nullable() && !SourceColumn::of(f).not_null,
                    create,
                    create_error,
                })
            })
            .collect()
    }
}

/// An input column as a load's plan reads it (`IngestSource.fields`).
#[pyclass(frozen, module = "fastodbc._native", name = "IngestField")]
pub struct IngestField {
    #[pyo3(get)]
    name: String,
    /// The Arrow type, as text.
    #[pyo3(get)]
    arrow_type: String,
    /// False: the field is not nullable, or its metadata says its source column was NOT NULL.
    #[pyo3(get)]
    nullable: bool,
    /// The column a created table gets for it; None when no column can hold it.
    #[pyo3(get)]
    create: Option<Py<CreateColumn>>,
    /// Why no column can hold it (when `create` is None).
    #[pyo3(get)]
    create_error: Option<String>,
}

/// The column a created table gets for an input column (`fastodbc_arrow::ingest::CreateType`),
/// named from the driver's type names by `fastodbc.ingest`.
#[pyclass(frozen, module = "fastodbc._native", name = "CreateColumn")]
pub struct CreateColumn {
    /// The SQL type (`SQL_INTEGER`, ...).
    #[pyo3(get)]
    sql_type: i16,
    /// An unsigned integer: the database's unsigned type of this width where it has one, the
    /// next wider signed type otherwise.
    #[pyo3(get)]
    unsigned: bool,
    /// Digits of a NUMERIC.
    #[pyo3(get)]
    precision: u32,
    /// Scale of a NUMERIC; fractional second digits of a TIME or TIMESTAMP.
    #[pyo3(get)]
    scale: u32,
    /// A timestamp with a zone: the database's zoned timestamp type where it has one.
    #[pyo3(get)]
    zoned: bool,
    /// Characters of a CHAR / VARCHAR, bytes of a VARBINARY (0: none).
    #[pyo3(get)]
    length: usize,
    /// The target's own type, used as named (`uuid`, `JSON`, `_int4`), or None.
    #[pyo3(get)]
    native: Option<String>,
}

impl From<CreateType> for CreateColumn {
    fn from(t: CreateType) -> CreateColumn {
        CreateColumn {
            sql_type: t.sql_type,
            unsigned: t.unsigned,
            precision: t.precision,
            scale: t.scale,
            zoned: t.zoned,
            length: t.length,
            native: t.native,
        }
    }
}

/// What `Cursor._ingest` loads and how: one typed object instead of positional arguments;
/// `fastodbc.ingest` builds it from its plan (`IngestPlan`) and the load's options.
#[pyclass(frozen, module = "fastodbc._native", name = "IngestRequest")]
pub struct IngestRequest {
    /// The input, read once.
    #[pyo3(get)]
    source: Py<IngestSource>,
    /// Names the target columns and returns no row.
    #[pyo3(get)]
    select_sql: String,
    /// One marker per target column.
    #[pyo3(get)]
    insert_sql: String,
    /// `source_indices[k]`: the input column written to target column k.
    #[pyo3(get)]
    source_indices: Vec<usize>,
    /// `not_null[k]`: the catalog knows target column k NOT NULL, whatever the driver
    /// describes (`Strategy::target_catalog_sql`).
    #[pyo3(get)]
    not_null: Vec<bool>,
    /// `sizeless[k]`: target column k's type declares no size, whatever the driver describes.
    #[pyo3(get)]
    sizeless: Vec<bool>,
    #[pyo3(get)]
    batch_rows: Option<usize>,
    #[pyo3(get)]
    batch_bytes: Option<usize>,
    /// Commit after every this many rows.
    #[pyo3(get)]
    commit_every: Option<usize>,
    /// NaN doubles stored as NULL.
    #[pyo3(get)]
    nan_as_null: bool,
}

#[pymethods]
impl IngestRequest {
    #[new]
    #[pyo3(signature = (*, source, select_sql, insert_sql, source_indices, not_null, sizeless, batch_rows=None, batch_bytes=None, commit_every=None, nan_as_null=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        source: Py<IngestSource>,
        select_sql: String,
        insert_sql: String,
        source_indices: Vec<usize>,
        not_null: Vec<bool>,
        sizeless: Vec<bool>,
        batch_rows: Option<usize>,
        batch_bytes: Option<usize>,
        commit_every: Option<usize>,
        nan_as_null: bool,
    ) -> IngestRequest {
        IngestRequest {
            source,
            select_sql,
            insert_sql,
            source_indices,
            not_null,
            sizeless,
            batch_rows,
            batch_bytes,
            commit_every,
            nan_as_null,
        }
    }
}

/// The longest column name a server keeps as given (`Server::column_name_limit`).
#[pyclass(module = "fastodbc._native", frozen)]
pub struct ColumnNameLimit(NameLimit);

#[pymethods]
impl ColumnNameLimit {
    /// The most it keeps, in `unit`.
    #[getter]
    fn most(&self) -> usize {
        self.0.most
    }

    /// "bytes" (of UTF-8) or "characters".
    #[getter]
    fn unit(&self) -> &'static str {
        match self.0.unit {
            NameUnit::Bytes => "bytes",
            NameUnit::Characters => "characters",
        }
    }

    /// The length of `name` in `unit`.
    fn length_of(&self, name: &str) -> usize {
        self.0.length_of(name)
    }
}

/// The column name limit of the server of `SQL_DBMS_NAME` / `SQL_DBMS_VER`, given the driver's
/// `SQL_MAX_COLUMN_NAME_LEN` (`reported`, 0: no answer); None: no limit known.
#[pyfunction]
pub fn column_name_limit(
    dbms_name: &str,
    dbms_version: &str,
    reported: usize,
) -> Option<ColumnNameLimit> {
    Server::detect(dbms_name, dbms_version)
        .column_name_limit(reported)
        .map(ColumnNameLimit)
}

fn check_capsule(capsule: &Bound<'_, PyCapsule>, name: &std::ffi::CStr) -> PyResult<()> {
    match capsule.name()? {
        Some(n) if n == name => Ok(()),
        other => Err(PyTypeError::new_err(format!(
            "expected an Arrow capsule named {name:?}, got {other:?}"
        ))),
    }
}

/// A record batch from an object with `__arrow_c_array__`, its buffers aligned.
fn batch_of(obj: &Bound<'_, PyAny>) -> PyResult<RecordBatch> {
    let pair = obj.call_method0("__arrow_c_array__").map_err(|_| {
        PyTypeError::new_err(format!(
            "ingest reads record batches (objects with __arrow_c_array__), not {}",
            obj.get_type()
        ))
    })?;
    let schema = pair.get_item(0)?;
    let schema = schema.downcast::<PyCapsule>()?;
    let array = pair.get_item(1)?;
    let array = array.downcast::<PyCapsule>()?;
    check_capsule(schema, c"arrow_schema")?;
    check_capsule(array, c"arrow_array")?;
    // SAFETY: capsules of those names hold an FFI_ArrowSchema (borrowed here) and an
    // FFI_ArrowArray (moved out, leaving a released one for the capsule's destructor).
    let batch = unsafe {
        let schema = &*(schema.pointer() as *const FFI_ArrowSchema);
        let array = FFI_ArrowArray::from_raw(array.pointer() as *mut FFI_ArrowArray);
        batch_from_c_array(array, schema)
    };
    batch.map_err(|e| PyTypeError::new_err(format!("reading a record batch: {e}")))
}

/// A Python exception raised while the load ran without the GIL (Ctrl-C), kept to be raised
/// instead of the core error that stopped the load.
struct Pending(Option<PyErr>);

impl Cursor {
    /// Loads `request.source` into the table (`IngestRequest` says how). Returns the rows sent.
    pub(super) fn ingest_impl(&self, py: Python<'_>, request: &IngestRequest) -> PyResult<usize> {
        let source = request.source.borrow(py);
        let select = request.select_sql.as_str();
        let insert = request.insert_sql.as_str();
        let commit_every = request.commit_every;
        let Some(mut batches) = crate::lock::lock(py, &source.batches).take() else {
            return Err(errors::programming(py, "this input was read already"));
        };
        let schema = Arc::clone(&source.schema);
        let (settings, mut guard) = self.begin_statement(py)?;
        let st = &mut *guard;
        self.apply_timeout(py, st)?;
        let stmt = self.statement(py, st)?;
        let strategy = stmt.strategy();
        // The bytes of converted values a chunk holds: the caller's, else the budget's share.
        let batch_bytes = request
            .batch_bytes
            .or(Some(settings.budget.param_chunk_bytes()));
        let opts = WriteOptions {
            sizes_unreliable: strategy.plan.sizes_unreliable,
            refuse_nul: strategy.refuse_nul,
            timestamp_digits: if strategy.timestamp_as_text { 6 } else { 9 },
            nan: if request.nan_as_null {
                Nan::Null
            } else if strategy.refuse_nan {
                Nan::Refuse
            } else {
                Nan::Keep
            },
            affinity_by_type_name: strategy.affinity_by_type_name,
        };
        let gate = &self.shared.cancel;
        let conn = self.conn();
        let mut committed = 0usize;
        let mut pending = Pending(None);
        let mut raised_by_input: Option<PyErr> = None;
        let mut messages = Vec::new();
        let result = gil_turns::detached(py, || -> Result<usize> {
            let mut targets = describe_target(stmt, select)?;
            // The catalog's NOT NULL where the description doesn't tell (sqliteodbc).
            for (t, &nn) in targets.iter_mut().zip(&request.not_null) {
                t.nullable &= !nn;
            }
            for (t, _) in targets
                .iter_mut()
                .zip(&request.sizeless)
                .filter(|(_, &u)| u)
            {
                t.declare_no_size();
            }
            let columns = plan_columns(&schema, &request.source_indices, targets, &opts)?;
            let mut load =
                Load::start(stmt, insert, columns, opts, request.batch_rows, batch_bytes)?;
            let mut after_chunk = |sent: usize| -> Result<()> {
                // Ctrl-C in the main thread: stop between chunks.
                if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                    pending.0 = Some(e);
                    return Err(Error::Programming("interrupted".into()));
                }
                if let Some(every) = commit_every {
                    if sent - committed >= every {
                        conn.end_transaction_released(true)?;
                        committed = sent;
                    }
                }
                Ok(())
            };
            let mut index = 0;
            let outcome = loop {
                index += 1;
                match batches.next(&schema, index, &mut raised_by_input) {
                    Ok(Some(batch)) => {
                        if let Err(e) = load.send(&batch, gate, &mut after_chunk) {
                            break Err(e);
                        }
                    }
                    Ok(None) => break Ok(()),
                    Err(e) => break Err(e),
                }
            };
            messages = message_tuples(load.messages());
            let rows = load.rows();
            load.finish();
            outcome.map(|_| rows)
        });
        st.messages = messages;
        if self.conn().in_manual_commit() {
            self.conn()
                .shared
                .txn_dirty
                .store(true, std::sync::atomic::Ordering::Release);
        }
        match result {
            Ok(rows) => {
                st.rowcount = rows as i64;
                Ok(rows)
            }
            Err(_) if raised_by_input.is_some() => Err(raised_by_input
                .take()
                .unwrap_or_else(|| errors::programming(py, "the input failed"))),
            Err(_) if pending.0.is_some() => Err(pending
                .0
                .take()
                .unwrap_or_else(|| errors::programming(py, "interrupted"))),
            Err(e) if commit_every.is_some() => Err(errors::to_py_with_note(
                py,
                e,
                &format!(
                    "{committed} input rows were committed before the error; \
                     the rest of the load is rolled back"
                ),
            )),
            Err(e) => Err(e).py(py),
        }
    }
}
