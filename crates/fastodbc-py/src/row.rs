//! `Row`: the tuple-like record fetch returns, with values by position or by column name.

use std::collections::HashMap;
use std::sync::OnceLock;

use pyo3::exceptions::{PyAttributeError, PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PySlice, PyTuple};

/// Column names and the description, shared by every row of one result set. The name index
/// is built from the description at the first access by name: most results never need it.
#[pyclass(frozen, module = "fastodbc._native")]
pub struct ColumnMap {
    index: OnceLock<HashMap<String, usize>>,
    pub description: Py<PyTuple>,
}

impl ColumnMap {
    pub fn new(description: Py<PyTuple>) -> ColumnMap {
        ColumnMap {
            index: OnceLock::new(),
            description,
        }
    }

    /// Position of the column called `name`; the first of duplicate names wins, as in pyodbc.
    pub fn position(&self, py: Python<'_>, name: &str) -> Option<usize> {
        let index = self.index.get_or_init(|| {
            let columns = self.description.bind(py);
            let mut index = HashMap::with_capacity(columns.len());
            for (i, column) in columns.iter().enumerate() {
                if let Ok(name) = column.get_item(0).and_then(|n| n.extract::<String>()) {
                    index.entry(name).or_insert(i);
                }
            }
            index
        });
        index.get(name).copied()
    }
}

/// A result row: indexable, sliceable, comparable with tuples, hashable, and with attribute
/// access by column name (`row.name`). Values live in one tuple (one small-object allocation
/// with the values inline); a freelist recycles rows while a cursor is iterated.
#[pyclass(sequence, freelist = 1024, module = "fastodbc", name = "Row")]
pub struct Row {
    pub values: Py<PyTuple>,
    pub columns: Py<ColumnMap>,
}

impl Row {
    fn position(&self, py: Python<'_>, index: isize) -> PyResult<usize> {
        let n = self.values.bind(py).len() as isize;
        let i = if index < 0 { index + n } else { index };
        if i < 0 || i >= n {
            return Err(PyIndexError::new_err("tuple index out of range"));
        }
        Ok(i as usize)
    }
}

#[pymethods]
impl Row {
    fn __len__(&self, py: Python<'_>) -> usize {
        self.values.bind(py).len()
    }

    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let values = self.values.bind(py);
        if let Ok(i) = key.extract::<isize>() {
            return Ok(values.get_item(self.position(py, i)?)?.unbind());
        }
        if let Ok(s) = key.downcast::<PySlice>() {
            return Ok(values.as_any().get_item(s)?.unbind());
        }
        Err(PyTypeError::new_err(
            "row indices must be integers or slices",
        ))
    }

    fn __setitem__(&mut self, py: Python<'_>, index: isize, value: PyObject) -> PyResult<()> {
        // Rows are mutable as in pyodbc; the tuple is not, so it is replaced.
        let i = self.position(py, index)?;
        let mut items: Vec<PyObject> = self.values.bind(py).iter().map(|v| v.unbind()).collect();
        items[i] = value;
        self.values = PyTuple::new(py, items)?.unbind();
        Ok(())
    }

    fn __contains__(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.values.bind(py).contains(value)
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<PyObject> {
        Ok(self.values.bind(py).try_iter()?.into_any().unbind())
    }

    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<PyObject> {
        match self.columns.get().position(py, name) {
            Some(i) => Ok(self.values.bind(py).get_item(i)?.unbind()),
            None => Err(PyAttributeError::new_err(format!(
                "'Row' object has no attribute '{name}'"
            ))),
        }
    }

    fn __richcmp__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<PyObject> {
        let mine = self.values.bind(py);
        let theirs = if let Ok(r) = other.downcast::<Row>() {
            r.borrow().values.bind(py).clone().into_any()
        } else if other.downcast::<PyTuple>().is_ok() {
            other.clone()
        } else {
            return Ok(py.NotImplemented());
        };
        Ok(mine.rich_compare(theirs, op)?.unbind())
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.values.bind(py).hash()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.values.bind(py).repr()?.to_string())
    }

    fn __reduce__(&self, py: Python<'_>) -> (PyObject, (Py<PyTuple>,)) {
        // Pickles as a plain tuple: the description belongs to a cursor.
        (
            py.get_type::<PyTuple>().into_any().unbind(),
            (self.values.clone_ref(py),),
        )
    }

    /// The `description` of the cursor that produced this row.
    #[getter]
    fn cursor_description(&self, py: Python<'_>) -> Py<PyTuple> {
        self.columns.get().description.clone_ref(py)
    }
}
