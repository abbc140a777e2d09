//! Dates and times to Python: `datetime.date`, `datetime.time` (a `timedelta` for a time
//! outside a day), `datetime.datetime` (naive; microseconds, never less). What `datetime`
//! cannot hold is a `DataError` at its row.

use fastodbc_core::types::temporal;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDate, PyDateTime, PyDelta, PyTime};

use super::invalid;
use crate::errors;

pub(super) fn date(py: Python<'_>, b: &[u8], column: &str) -> PyResult<PyObject> {
    if b.len() < 6 {
        return Err(invalid(py, column, "date", b));
    }
    let d = temporal::read_date(b);
    let text = || format!("{}-{:02}-{:02}", d.year, d.month, d.day);
    Ok(match (u8::try_from(d.month), u8::try_from(d.day)) {
        (Ok(month), Ok(day)) => PyDate::new(py, d.year.into(), month, day),
        _ => Err(PyValueError::new_err("month or day out of range")),
    }
    .map_err(|e| unrepresentable(py, e, column, text()))?
    .into_any()
    .unbind())
}

pub(super) fn time(py: Python<'_>, b: &[u8], column: &str) -> PyResult<PyObject> {
    if let Some((h, m, s, us)) = temporal::parse_time(b) {
        return Ok(PyTime::new(py, h, m, s, us, None)?.into_any().unbind());
    }
    // Outside a day (MariaDB's TIME is a duration, -838:59:59.999999 to 838:59:59.999999;
    // PostgreSQL's 24:00:00): a timedelta, which holds it.
    let us = temporal::parse_duration(b).ok_or_else(|| invalid(py, column, "time", b))?;
    let (days, rest) = (us.div_euclid(86_400_000_000), us.rem_euclid(86_400_000_000));
    let (secs, micros) = (rest / 1_000_000, rest % 1_000_000);
    let int = |v: i64| i32::try_from(v).map_err(|_| invalid(py, column, "time", b));
    Ok(
        PyDelta::new(py, int(days)?, int(secs)?, int(micros)?, false)?
            .into_any()
            .unbind(),
    )
}

pub(super) fn timestamp(py: Python<'_>, b: &[u8], column: &str) -> PyResult<PyObject> {
    if b.len() < 16 {
        return Err(invalid(py, column, "timestamp", b));
    }
    let t = temporal::read_timestamp(b);
    if !t.fraction.is_multiple_of(1000) {
        return Err(errors::data_error(
            py,
            "22008",
            format!(
                "column {column:?}: timestamp has sub-microsecond precision ({} ns), which \
                 datetime cannot hold",
                t.fraction
            ),
        ));
    }
    let text = || {
        format!(
            "{}-{:02}-{:02} {:02}:{:02}:{:02}",
            t.year, t.month, t.day, t.hour, t.minute, t.second
        )
    };
    let fields = [t.month, t.day, t.hour, t.minute, t.second].map(u8::try_from);
    Ok(match fields {
        [Ok(month), Ok(day), Ok(hour), Ok(minute), Ok(second)] => {
            let us = t.fraction / 1000;
            PyDateTime::new(
                py,
                t.year.into(),
                month,
                day,
                hour,
                minute,
                second,
                us,
                None,
            )
        }
        _ => Err(PyValueError::new_err("field out of range")),
    }
    .map_err(|e| unrepresentable(py, e, column, text()))?
    .into_any()
    .unbind())
}

/// A date or timestamp from the driver that `datetime` cannot hold (year 0 or past 9999, month
/// or day 0: MariaDB stores them; psqlODBC sends `-infinity` as year -9999) is a `DataError`
/// at its row, not the `ValueError` of Python's constructor.
fn unrepresentable(py: Python<'_>, e: PyErr, column: &str, value: String) -> PyErr {
    if !e.is_instance_of::<PyValueError>(py) {
        return e;
    }
    errors::data_error(
        py,
        "22008",
        format!("column {column:?}: {value} is not a date datetime can hold ({e})"),
    )
}
