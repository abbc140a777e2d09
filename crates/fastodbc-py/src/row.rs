//! `Row`: the tuple-like record fetch returns, with values by position or by column name.

use std::collections::HashMap;

use pyo3::exceptions::{PyAttributeError, PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PySlice, PyTuple};

/// Column names and the description, shared by every row of one result set.
#[pyclass(frozen, module = "fastodbc._native")]
pub struct ColumnMap {
    pub index: HashMap<String, usize>,
    pub description: Py<PyTuple>,
}

impl ColumnMap {
    pub fn new(names: &[String], description: Py<PyTuple>) -> ColumnMap {
        let mut index = HashMap::with_capacity(names.len());
        // The first of duplicate names wins, as in pyodbc.
        for (i, n) in names.iter().enumerate().rev() {
            index.insert(n.clone(), i);
        }
        ColumnMap { index, description }
    }
}

/// A result row: indexable, sliceable, comparable with tuples, hashable, and with attribute
/// access by column name (`row.name`).
#[pyclass(sequence, module = "fastodbc", name = "Row")]
pub struct Row {
    pub values: Vec<PyObject>,
    pub columns: Py<ColumnMap>,
}

impl Row {
    fn as_tuple<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.values.iter().map(|v| v.bind(py)))
    }

    fn position(&self, index: isize) -> PyResult<usize> {
        let n = self.values.len() as isize;
        let i = if index < 0 { index + n } else { index };
        if i < 0 || i >= n {
            return Err(PyIndexError::new_err("tuple index out of range"));
        }
        Ok(i as usize)
    }
}

#[pymethods]
impl Row {
    fn __len__(&self) -> usize {
        self.values.len()
    }

    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        if let Ok(i) = key.extract::<isize>() {
            return Ok(self.values[self.position(i)?].clone_ref(py));
        }
        if let Ok(s) = key.downcast::<PySlice>() {
            return Ok(self.as_tuple(py)?.as_any().get_item(s)?.unbind());
        }
        Err(PyTypeError::new_err(
            "row indices must be integers or slices",
        ))
    }

    fn __setitem__(&mut self, index: isize, value: PyObject) -> PyResult<()> {
        let i = self.position(index)?;
        self.values[i] = value;
        Ok(())
    }

    fn __contains__(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        for v in &self.values {
            if v.bind(py).eq(value)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<PyObject> {
        Ok(self.as_tuple(py)?.try_iter()?.into_any().unbind())
    }

    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<PyObject> {
        match self.columns.get().index.get(name) {
            Some(&i) => Ok(self.values[i].clone_ref(py)),
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
        let mine = self.as_tuple(py)?;
        let theirs = if let Ok(r) = other.downcast::<Row>() {
            r.borrow().as_tuple(py)?.into_any()
        } else if other.downcast::<PyTuple>().is_ok() {
            other.clone()
        } else {
            return Ok(py.NotImplemented());
        };
        Ok(mine.rich_compare(theirs, op)?.unbind())
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.as_tuple(py)?.hash()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.as_tuple(py)?.repr()?.to_string())
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(PyObject, (Bound<'py, PyTuple>,))> {
        // Pickles as a plain tuple: the description belongs to a cursor.
        Ok((
            py.get_type::<PyTuple>().into_any().unbind(),
            (self.as_tuple(py)?,),
        ))
    }

    /// The `description` of the cursor that produced this row.
    #[getter]
    fn cursor_description(&self, py: Python<'_>) -> Py<PyTuple> {
        self.columns.get().description.clone_ref(py)
    }
}
