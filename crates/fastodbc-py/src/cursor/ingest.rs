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
    AlignedStream, Load, Nan, WriteOptions,
};
use fastodbc_arrow::source::SourceColumn;
use fastodbc_core::driver::{NameUnit, Server};
use fastodbc_core::{Error, Result};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyIterator, PyTuple};

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
#[pyclass(module = "fastodbc._native", name = "IngestSource")]
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

    /// One tuple per input column: (name, Arrow type text, nullable (false: the field is not
    /// nullable, or its metadata says its source column was NOT NULL), the column `create`
    /// makes for it on the server `SQL_DBMS_NAME` / `SQL_DBMS_VER` name, as (SQL type,
    /// unsigned, precision, scale, zoned, length, native type name or None), or why no column
    /// can hold it).
    #[pyo3(signature = (dbms_name = "", dbms_version = ""))]
    fn fields<'py>(
        &self,
        py: Python<'py>,
        dbms_name: &str,
        dbms_version: &str,
    ) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        let server = Server::detect(dbms_name, dbms_version);
        self.schema
            .fields()
            .iter()
            .map(|f| {
                let create: PyObject = match create_column(f, &server) {
                    Ok(t) => (
                        t.sql_type,
                        t.unsigned,
                        t.precision,
                        t.scale,
                        t.zoned,
                        t.length,
                        t.native,
                    )
                        .into_pyobject(py)?
                        .into_any()
                        .unbind(),
                    Err(why) => why.into_pyobject(py)?.into_any().unbind(),
                };
                PyTuple::new(
                    py,
                    [
                        f.name().into_pyobject(py)?.into_any().unbind(),
                        arrow_type_text(f.data_type())
                            .into_pyobject(py)?
                            .into_any()
                            .unbind(),
                        // NOT NULL: the field's flag, or its source column's (`fastodbc.not_null`).
                        pyo3::types::PyBool::new(
                            py,
                            f.is_nullable() && !SourceColumn::of(f).not_null,
                        )
                        .to_owned()
                        .into_any()
                        .unbind(),
                        create,
                    ],
                )
            })
            .collect()
    }
}

/// The longest column name the server keeps as given, and its unit ("bytes" or
/// "characters"), from its `SQL_DBMS_NAME`, `SQL_DBMS_VER` and the driver's
/// `SQL_MAX_COLUMN_NAME_LEN` (`Server::column_name_limit`); None: no limit known.
#[pyfunction]
pub fn column_name_limit(
    dbms_name: &str,
    dbms_version: &str,
    reported: usize,
) -> Option<(usize, &'static str)> {
    Server::detect(dbms_name, dbms_version)
        .column_name_limit(reported)
        .map(|l| {
            let unit = match l.unit {
                NameUnit::Bytes => "bytes",
                NameUnit::Characters => "characters",
            };
            (l.most, unit)
        })
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
    /// Loads `source` into the table: `select` names the target columns and returns no row,
    /// `insert` has one marker per target column, `columns[k]` is the input column written to
    /// target column k; of `catalog`, `not_null[k]` says the catalog knows it NOT NULL and
    /// `sizeless[k]` that its type declares no size, whatever the driver describes
    /// (`Strategy::target_catalog_sql`). Commits after every `commit_every` rows when given;
    /// `nan_as_null` stores NaN doubles as NULL. Returns the rows sent.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn ingest_impl(
        &self,
        py: Python<'_>,
        source: &IngestSource,
        select: &str,
        insert: &str,
        columns: Vec<usize>,
        catalog: (Vec<bool>, Vec<bool>),
        batch_rows: Option<usize>,
        batch_bytes: Option<usize>,
        commit_every: Option<usize>,
        nan_as_null: bool,
    ) -> PyResult<usize> {
        let Some(mut batches) = crate::lock::lock(py, &source.batches).take() else {
            return Err(errors::programming(py, "this input was read already"));
        };
        let schema = Arc::clone(&source.schema);
        let (_settings, mut guard) = self.begin_statement(py)?;
        let st = &mut *guard;
        self.apply_timeout(py, st)?;
        let stmt = self.statement(py, st)?;
        let strategy = stmt.strategy();
        let opts = WriteOptions {
            sizes_unreliable: strategy.plan.sizes_unreliable,
            refuse_nul: strategy.refuse_nul,
            timestamp_digits: if strategy.timestamp_as_text { 6 } else { 9 },
            nan: if nan_as_null {
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
        let result = py.allow_threads(|| -> Result<usize> {
            let mut targets = describe_target(stmt, select)?;
            // The catalog's NOT NULL where the description doesn't tell (sqliteodbc).
            let (not_null, sizeless) = &catalog;
            for (t, &nn) in targets.iter_mut().zip(not_null) {
                t.nullable &= !nn;
            }
            for (t, _) in targets.iter_mut().zip(sizeless).filter(|(_, &u)| u) {
                t.declare_no_size();
            }
            let columns = plan_columns(&schema, &columns, targets, &opts)?;
            let mut load = Load::start(stmt, insert, columns, opts, batch_rows, batch_bytes)?;
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
