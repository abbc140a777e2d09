//! `Row`: the record fetch returns. It is a `tuple` subclass holding the values inline, so a
//! row is one allocation (no separate values tuple) and indexing, slicing, iteration,
//! comparison with tuples, hashing and repr are the tuple's own. One hidden slot after the
//! visible values holds the result set's `ColumnMap`, for attribute access by column name
//! (`row.name`) and `row.cursor_description`. Rows are mutable (`row[i] = x`), as in pyodbc.
//!
//! On a free-threaded CPython a tuple is read without a lock, by CPython and by every C
//! extension, which take an item and then its reference. A replaced value freed at once could be
//! freed between the two. So there a row keeps what `row[i] = x` replaces, in a second hidden
//! slot (a list), until the row itself goes: a reader sees the old value or the new one, both
//! alive. Writers take the row's critical section.
//!
//! The type is built with CPython's C API (`PyType_FromSpecWithBases`): PyO3 classes can't
//! extend variable-size built-ins.

use std::collections::HashMap;
use std::ffi::{c_int, c_void, CStr};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::{GILOnceCell, OnceLockExt};
use pyo3::types::{PyList, PyTuple, PyType};

use crate::FREE_THREADED;

/// Hidden items after a row's values: the column map, and on a free-threaded CPython the list
/// of the values `row[i] = x` replaced (NULL until the first).
const HIDDEN: usize = if FREE_THREADED { 2 } else { 1 };

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
        // Initialised attached: other threads wait detached, so a stop-the-world pause (the
        // free-threaded collector) is never held up by them.
        let index = self.index.get_or_init_py_attached(py, || {
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

static ROW_TYPE: GILOnceCell<Py<PyType>> = GILOnceCell::new();

/// The `Row` type (created once, at module import).
pub fn row_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    ROW_TYPE
        .get_or_try_init(py, || create_row_type(py))
        .map(|t| t.bind(py))
}

fn create_row_type(py: Python<'_>) -> PyResult<Py<PyType>> {
    // Definitions CPython keeps pointers to: leaked once per process.
    let methods: &'static mut [ffi::PyMethodDef] = Box::leak(Box::new([
        ffi::PyMethodDef {
            ml_name: c"__reduce__".as_ptr(),
            ml_meth: ffi::PyMethodDefPointer {
                PyCFunction: row_reduce,
            },
            ml_flags: ffi::METH_NOARGS,
            ml_doc: c"Pickles as a plain tuple: the description belongs to a cursor.".as_ptr(),
        },
        ffi::PyMethodDef::zeroed(),
    ]));
    let getset: &'static mut [ffi::PyGetSetDef] = Box::leak(Box::new([
        ffi::PyGetSetDef {
            name: c"cursor_description".as_ptr(),
            get: Some(row_cursor_description),
            set: None,
            doc: c"The description of the cursor that produced this row.".as_ptr(),
            closure: null_mut(),
        },
        ffi::PyGetSetDef {
            name: std::ptr::null(),
            get: None,
            set: None,
            doc: std::ptr::null(),
            closure: null_mut(),
        },
    ]));
    let doc: &CStr = c"A result row: a tuple of the values, also readable by column name \
        (row.name) and writable by position (row[i] = x).";
    let slots: &'static mut [ffi::PyType_Slot] = Box::leak(Box::new([
        ffi::PyType_Slot {
            slot: ffi::Py_tp_dealloc,
            pfunc: row_dealloc as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_traverse,
            pfunc: row_traverse as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_getattro,
            pfunc: row_getattro as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_sq_ass_item,
            pfunc: row_ass_item as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_mp_subscript,
            pfunc: row_subscript as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_methods,
            pfunc: methods.as_mut_ptr() as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_getset,
            pfunc: getset.as_mut_ptr() as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_doc,
            pfunc: doc.as_ptr() as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: 0,
            pfunc: null_mut(),
        },
    ]));
    let spec: &'static mut ffi::PyType_Spec = Box::leak(Box::new(ffi::PyType_Spec {
        name: c"fastodbc.Row".as_ptr(),
        // The tuple's own layout: the hidden slot is one more item.
        basicsize: 0,
        itemsize: 0,
        // Only fetch creates rows: `Row(...)` from Python would lack the hidden slot.
        flags: (ffi::Py_TPFLAGS_DEFAULT
            | ffi::Py_TPFLAGS_DISALLOW_INSTANTIATION
            | ffi::Py_TPFLAGS_HAVE_GC) as _,
        slots: slots.as_mut_ptr(),
    }));
    // SAFETY: the spec and everything it points to are 'static; the base is a new reference
    // to `tuple` that PyType_FromSpecWithBases keeps.
    unsafe {
        let tuple = ffi::PyTuple_Pack(
            1,
            std::ptr::addr_of_mut!(ffi::PyTuple_Type).cast::<ffi::PyObject>(),
        );
        if tuple.is_null() {
            return Err(PyErr::fetch(py));
        }
        let t = ffi::PyType_FromSpecWithBases(spec, tuple);
        ffi::Py_DECREF(tuple);
        Ok(Bound::from_owned_ptr_or_err(py, t)?
            .downcast_into_unchecked::<PyType>()
            .unbind())
    }
}

/// Items of a row (or any tuple) object: `Py_SIZE` visible ones, then the `HIDDEN` ones.
///
/// SAFETY: `obj` must be a live tuple object.
unsafe fn items(obj: *mut ffi::PyObject) -> *mut *mut ffi::PyObject {
    (*(obj as *mut ffi::PyTupleObject)).ob_item.as_mut_ptr()
}

/// The item at `slot`, read as the row's writers store it (`row_ass_item`).
///
/// SAFETY: `slot` points into a live row's items.
unsafe fn load(slot: *mut *mut ffi::PyObject) -> *mut ffi::PyObject {
    AtomicPtr::from_ptr(slot).load(Ordering::Acquire)
}

/// A new row of `n` values, all NULL, with `columns` in the hidden slot and the GC not
/// tracking it. The caller stores every value with `PyTuple_SET_ITEM` (a row is still a tuple)
/// before the row is used, then tracks it if a value could form a reference cycle.
pub fn new_row<'py>(
    py: Python<'py>,
    n: usize,
    columns: &Py<ColumnMap>,
) -> PyResult<Bound<'py, PyAny>> {
    let tp = row_type(py)?;
    // SAFETY: allocates n + HIDDEN items of the row type (a tuple subclass: same layout). Items
    // are zeroed before anything can see the object, so a partly filled row deallocates
    // cleanly; the visible size is then n.
    unsafe {
        let obj = ffi::_PyObject_GC_NewVar(tp.as_ptr().cast(), (n + HIDDEN) as ffi::Py_ssize_t);
        if obj.is_null() {
            return Err(PyErr::fetch(py));
        }
        let obj = obj.cast::<ffi::PyObject>();
        std::ptr::write_bytes(items(obj), 0, n + HIDDEN);
        *items(obj).add(n) = columns.clone_ref(py).into_ptr();
        (*(obj as *mut ffi::PyVarObject)).ob_size = n as ffi::Py_ssize_t;
        Ok(Bound::from_owned_ptr(py, obj))
    }
}

/// The hidden `ColumnMap` of a row.
///
/// SAFETY: `obj` must be a live row.
unsafe fn column_map<'py>(
    py: Python<'py>,
    obj: *mut ffi::PyObject,
) -> Option<Bound<'py, ColumnMap>> {
    let map = *items(obj).add(ffi::Py_SIZE(obj) as usize);
    if map.is_null() {
        return None;
    }
    Bound::from_borrowed_ptr(py, map)
        .downcast_into::<ColumnMap>()
        .ok()
}

// SAFETY (of the slot functions below): CPython calls them attached (holding the GIL, where
// there is one) with `obj` a live row, whose items are `Py_SIZE(obj)` values followed by the
// `HIDDEN` ones (`new_row`).

unsafe extern "C" fn row_dealloc(obj: *mut ffi::PyObject) {
    let tp = ffi::Py_TYPE(obj);
    let hidden = items(obj).add(ffi::Py_SIZE(obj) as usize);
    let map = std::mem::replace(&mut *hidden, null_mut());
    let replaced = if FREE_THREADED {
        std::mem::replace(&mut *hidden.add(1), null_mut())
    } else {
        null_mut()
    };
    // The tuple's dealloc releases the visible values and frees the memory (a subclass never
    // goes to the tuple free list). A heap type's instances hold a reference to it.
    if let Some(dealloc) = (*std::ptr::addr_of!(ffi::PyTuple_Type)).tp_dealloc {
        dealloc(obj);
    }
    ffi::Py_XDECREF(map);
    ffi::Py_XDECREF(replaced);
    ffi::Py_DECREF(tp.cast());
}

/// The collector's walk: the tuple's (the values), then the replaced values' list, which may
/// close a cycle back to the row.
unsafe extern "C" fn row_traverse(
    obj: *mut ffi::PyObject,
    visit: ffi::visitproc,
    arg: *mut c_void,
) -> c_int {
    if let Some(traverse) = (*std::ptr::addr_of!(ffi::PyTuple_Type)).tp_traverse {
        let done = traverse(obj, visit, arg);
        if done != 0 {
            return done;
        }
    }
    if FREE_THREADED {
        let replaced = load(items(obj).add(ffi::Py_SIZE(obj) as usize + 1));
        if !replaced.is_null() {
            return visit(replaced, arg);
        }
    }
    0
}

/// `row.name`: a column of that name first (pyodbc's order: a column called `count` wins over
/// the tuple method), then the type's attributes.
unsafe extern "C" fn row_getattro(
    obj: *mut ffi::PyObject,
    name: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let py = Python::assume_gil_acquired();
    let mut len: ffi::Py_ssize_t = 0;
    let text = ffi::PyUnicode_AsUTF8AndSize(name, &mut len);
    if !text.is_null() {
        let bytes = std::slice::from_raw_parts(text as *const u8, len as usize);
        if let (Ok(name), Some(map)) = (std::str::from_utf8(bytes), column_map(py, obj)) {
            if let Some(i) = map.get().position(py, name) {
                let value = load(items(obj).add(i));
                ffi::Py_INCREF(value);
                return value;
            }
        }
    } else {
        ffi::PyErr_Clear();
    }
    ffi::PyObject_GenericGetAttr(obj, name)
}

/// `row[key]`: the tuple's, but a slice of every value in order (`row[:]`) is the row itself,
/// as in pyodbc. An integer index is served here, as the tuple would (the same errors):
/// passing it on to the tuple's own subscript cost ~7 ns more a value.
unsafe extern "C" fn row_subscript(
    obj: *mut ffi::PyObject,
    key: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    if ffi::PyLong_CheckExact(key) != 0 {
        let mut i = ffi::PyNumber_AsSsize_t(key, ffi::PyExc_IndexError);
        if i == -1 && !ffi::PyErr_Occurred().is_null() {
            return null_mut();
        }
        let n = ffi::Py_SIZE(obj);
        if i < 0 {
            i += n;
        }
        if i < 0 || i >= n {
            ffi::PyErr_SetString(ffi::PyExc_IndexError, c"tuple index out of range".as_ptr());
            return null_mut();
        }
        let value = load(items(obj).add(i as usize));
        ffi::Py_INCREF(value);
        return value;
    }
    if ffi::PySlice_Check(key) != 0 {
        let (mut start, mut stop, mut step) = (0, 0, 0);
        if ffi::PySlice_Unpack(key, &mut start, &mut stop, &mut step) < 0 {
            return null_mut();
        }
        let n = ffi::Py_SIZE(obj);
        let len = ffi::PySlice_AdjustIndices(n, &mut start, &mut stop, step);
        if len > 0 && len == n && start == 0 && step == 1 {
            ffi::Py_INCREF(obj);
            return obj;
        }
    }
    let mapping = (*std::ptr::addr_of!(ffi::PyTuple_Type)).tp_as_mapping;
    match mapping.as_ref().and_then(|m| m.mp_subscript) {
        Some(subscript) => subscript(obj, key),
        None => {
            ffi::PyErr_SetString(
                ffi::PyExc_TypeError,
                c"tuple indexing is unavailable".as_ptr(),
            );
            null_mut()
        }
    }
}

/// `row[i] = value` (the index is already normalised by `PySequence_SetItem`).
unsafe extern "C" fn row_ass_item(
    obj: *mut ffi::PyObject,
    i: ffi::Py_ssize_t,
    value: *mut ffi::PyObject,
) -> c_int {
    if value.is_null() {
        ffi::PyErr_SetString(
            ffi::PyExc_TypeError,
            c"Row does not support item deletion".as_ptr(),
        );
        return -1;
    }
    if i < 0 || i >= ffi::Py_SIZE(obj) {
        ffi::PyErr_SetString(
            ffi::PyExc_IndexError,
            c"Row assignment index out of range".as_ptr(),
        );
        return -1;
    }
    let py = Python::assume_gil_acquired();
    let row = Bound::from_borrowed_ptr(py, obj);
    if FREE_THREADED {
        // Writers one at a time: the list of replaced values is made once, and the row is
        // tracked once (tracking it twice is a fatal error).
        pyo3::sync::with_critical_section(&row, || store(py, obj, i as usize, value))
    } else {
        store(py, obj, i as usize, value)
    }
}

/// Stores `value` at `i` (checked by the caller): the replaced value is released, or on a
/// free-threaded CPython kept in the row's list of replaced values.
///
/// SAFETY: `obj` is a live row, `i` one of its values, and no other writer runs.
unsafe fn store(
    py: Python<'_>,
    obj: *mut ffi::PyObject,
    i: usize,
    value: *mut ffi::PyObject,
) -> c_int {
    let kept = if FREE_THREADED {
        let slot = items(obj).add(ffi::Py_SIZE(obj) as usize + 1);
        let mut list = load(slot);
        if list.is_null() {
            list = PyList::empty(py).into_ptr();
            AtomicPtr::from_ptr(slot).store(list, Ordering::Release);
        }
        Some(list)
    } else {
        None
    };
    let slot = items(obj).add(i);
    ffi::Py_INCREF(value);
    let old = AtomicPtr::from_ptr(slot).swap(value, Ordering::AcqRel);
    if ffi::PyObject_GC_IsTracked(obj) == 0 && (ffi::PyObject_IS_GC(value) != 0 || kept.is_some()) {
        // A container stored by the user (or kept as replaced) could refer back to the row.
        ffi::PyObject_GC_Track(obj.cast());
    }
    match kept {
        // A reader may hold `old` without its reference yet: it lives as long as the row.
        Some(list) if !old.is_null() => {
            let done = ffi::PyList_Append(list, old);
            ffi::Py_DECREF(old);
            if done < 0 {
                return -1;
            }
        }
        _ => ffi::Py_XDECREF(old),
    }
    0
}

unsafe extern "C" fn row_reduce(
    obj: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let values = ffi::PyTuple_GetSlice(obj, 0, ffi::Py_SIZE(obj));
    if values.is_null() {
        return null_mut();
    }
    let tuple_type = std::ptr::addr_of_mut!(ffi::PyTuple_Type).cast::<ffi::PyObject>();
    let args = ffi::PyTuple_Pack(1, values);
    ffi::Py_DECREF(values);
    if args.is_null() {
        return null_mut();
    }
    let out = ffi::PyTuple_Pack(2, tuple_type, args);
    ffi::Py_DECREF(args);
    out
}

unsafe extern "C" fn row_cursor_description(
    obj: *mut ffi::PyObject,
    _: *mut c_void,
) -> *mut ffi::PyObject {
    let py = Python::assume_gil_acquired();
    match column_map(py, obj) {
        Some(map) => map.get().description.clone_ref(py).into_ptr(),
        None => {
            ffi::Py_INCREF(ffi::Py_None());
            ffi::Py_None()
        }
    }
}
