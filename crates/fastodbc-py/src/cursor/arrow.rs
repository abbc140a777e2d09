//! The Arrow consumer's Python side: a cursor lends its statement to an `ArrowBatches` stream
//! (`fastodbc-arrow`), wrapped in `RecordBatchReader`, which Python iterates (pyarrow batches,
//! DB-API exceptions) or hands whole to pyarrow, polars, DuckDB or nanoarrow as an Arrow C
//! stream (PyCapsule, through pyo3-arrow) that they may read on their own threads.

use std::sync::{Arc, Mutex};

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use fastodbc_arrow::{ArrowBatches, ArrowColumn, BatchLimits, NarrowDecoder, TypeOptions};
use fastodbc_core::{Error, StatementLoan, ValueKind};
use pyo3::exceptions::{PyImportError, PyStopIteration};
use pyo3::prelude::*;
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
        let next = py.allow_threads(|| stream.batches.next_batch());
        match next {
            Ok(Some(batch)) => Ok(Some(batch)),
            Ok(None) => {
                let done = guard.take();
                py.allow_threads(|| drop(done));
                Ok(None)
            }
            Err(e) => {
                let done = guard.take();
                py.allow_threads(|| drop(done));
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
        py.allow_threads(|| {
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
        let start = view
            .pos
            .saturating_sub(view.ready.len() + usize::from(view.failed.is_some()));
        let Some(mut reader) = st.stmt.take() else {
            return Err(closed_cursor(py));
        };
        let described = py.allow_threads(|| {
            let stmt = reader.statement(|join| join());
            let opts = TypeOptions {
                sizes_unreliable: stmt.strategy().plan.sizes_unreliable,
                narrow: Some(Arc::new(PythonCodecs)),
            };
            let plans = match stmt.result.as_mut() {
                Some(rs) => {
                    // The blocks fetched from now on are read column-wise: nothing to
                    // prepare for Python rows.
                    rs.clear_consumer();
                    rs.plan.columns.clone()
                }
                None => return None,
            };
            Some(
                plans
                    .iter()
                    .enumerate()
                    .map(|(i, plan)| {
                        let int = plan.kind == ValueKind::Int && plan.codec.is_none();
                        let unsigned = int && stmt.column_unsigned(i).unwrap_or(false);
                        ArrowColumn::for_plan(plan, unsigned, &opts)
                    })
                    .collect::<Vec<_>>(),
            )
        });
        let Some(columns) = described else {
            st.stmt = Some(reader);
            return Err(no_results());
        };
        view.ready.clear();
        view.failed = None;
        let loan = Arc::new(StatementLoan::new(reader));
        st.loan = Some(loan.clone());
        st.loan_start = start;
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
        let batches = ArrowBatches::new(loan, columns, start, limits).with_interrupt(interrupt);
        let schema = batches.schema();
        Ok(ArrowReader {
            stream: Mutex::new(Some(CursorBatches {
                batches,
                _cursor: self.shared.clone(),
                _connection: self.connection.clone_ref(py),
            })),
            schema,
        })
    }
}

/// The limits of a batch: the defaults where not given; zero is refused.
pub(super) fn limits(
    py: Python<'_>,
    batch_rows: Option<usize>,
    batch_bytes: Option<usize>,
) -> PyResult<BatchLimits> {
    let default = BatchLimits::default();
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
