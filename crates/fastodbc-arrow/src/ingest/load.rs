//! A load: the input's record batches sent into the target table through core's
//! `ExecuteMany`, so every driver gets the statement form its strategy chooses (parameter
//! arrays, a compiled-once INSERT, column arrays or multi-row VALUES), in chunks bounded in
//! rows and bytes.

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Schema};
use std::sync::mpsc;

use fastodbc_core::{
    BindOptions, DiagRecord, Encoded, Encoder, Error, ExecuteMany, ExecutionGate, ParamValue,
    Result, Statement, TextEncoding,
};

use super::rows::{write_column, At};
use super::target::TargetColumn;
use super::types::{arrow_type_text, choose, WriteOptions, Writer};

/// Bytes of converted values a chunk holds at most when the caller gives none (the default
/// budget's share, `MemoryBudget::param_chunk_bytes`).
pub const CHUNK_BYTES: usize = fastodbc_core::executemany::PARAM_CHUNK_BYTES;

/// One target column and the input column written into it.
#[derive(Debug, Clone)]
pub struct LoadColumn {
    /// The input column's index in the input schema.
    pub source: usize,
    pub target: TargetColumn,
    pub writer: Writer,
    /// `target.type_text()`, once.
    type_text: String,
}

/// Checks every input column against the target column it goes to (`source[k]` is the
/// input index written into `targets[k]`): all the refusals together in one `DataError`,
/// before anything is sent.
pub fn plan_columns(
    schema: &Schema,
    source: &[usize],
    targets: Vec<TargetColumn>,
    opts: &WriteOptions,
) -> Result<Vec<LoadColumn>> {
    if source.len() != targets.len() {
        return Err(Error::Programming(format!(
            "{} input columns for {} target columns",
            source.len(),
            targets.len()
        )));
    }
    let mut refusals = Vec::new();
    let mut columns = Vec::with_capacity(targets.len());
    for (&s, target) in source.iter().zip(targets) {
        let field = schema.fields().get(s).ok_or_else(|| {
            Error::Programming(format!("input column {s} is not in the input's schema"))
        })?;
        let type_text = target.type_text();
        match choose(field.data_type(), &target, opts) {
            Ok(writer) => columns.push(LoadColumn {
                source: s,
                target,
                writer,
                type_text,
            }),
            Err(why) => refusals.push(format!(
                "input column {:?} ({}) cannot be stored in column {:?} ({type_text}): {why}",
                field.name(),
                arrow_type_text(field.data_type()),
                target.name,
            )),
        }
    }
    if refusals.is_empty() {
        Ok(columns)
    } else {
        Err(Error::Data(refusals.join("; ")))
    }
}

/// A dictionary's values decoded, a view as its plain layout: the layouts `rows` reads.
fn normalized(array: &ArrayRef) -> Result<ArrayRef> {
    let plain = match array.data_type() {
        DataType::Dictionary(_, v) => (**v).clone(),
        DataType::Utf8View => DataType::Utf8,
        DataType::BinaryView => DataType::Binary,
        _ => return Ok(array.clone()),
    };
    let array = arrow_cast::cast(array, &plain)
        .map_err(|e| Error::Data(format!("reading the input: {e}")))?;
    // A dictionary of dictionaries or of views.
    normalized(&array)
}

/// A load under way on a statement.
pub struct Load<'s> {
    run: ExecuteMany<'s>,
    columns: Vec<LoadColumn>,
    opts: WriteOptions,
    chunk_rows: usize,
    chunk_bytes: usize,
    /// Input rows sent so far.
    rows: usize,
    /// `Strategy::array_row_in_errors`.
    row_in_errors: bool,
}

impl<'s> Load<'s> {
    /// Prepares `insert` (one marker per column, in `columns`' order) on `stmt`. `chunk_rows`
    /// / `chunk_bytes`: the most rows and converted bytes sent per execution (None: the
    /// driver strategy's chunk, `CHUNK_BYTES`).
    pub fn start(
        stmt: &'s mut Statement,
        insert: &str,
        columns: Vec<LoadColumn>,
        opts: WriteOptions,
        chunk_rows: Option<usize>,
        chunk_bytes: Option<usize>,
    ) -> Result<Load<'s>> {
        let strategy = stmt.strategy();
        // Arrow text is UTF-8: sent as is where the driver's narrow text is UTF-8.
        let text = if strategy.text_as_utf8 {
            TextEncoding::Utf8
        } else {
            TextEncoding::Utf16
        };
        let bind = BindOptions::for_driver(text, &strategy);
        let markers = columns.len();
        let run = ExecuteMany::start(stmt, insert, Some(markers), bind, true, None)?;
        let chunk_rows = chunk_rows.unwrap_or_else(|| run.chunk_rows()).max(1);
        Ok(Load {
            run,
            columns,
            opts,
            chunk_rows,
            chunk_bytes: chunk_bytes.unwrap_or(CHUNK_BYTES).max(1),
            rows: 0,
            row_in_errors: strategy.array_row_in_errors,
        })
    }

    /// Input rows sent so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Sends the rows of `batch` in chunks, every execution inside `gate`; `after_chunk` runs
    /// after each chunk with the rows sent so far (a commit every N rows, a check for Ctrl-C).
    /// A batch of several chunks is converted on a thread of its own, one chunk ahead of the
    /// one being sent, so that converting overlaps the server's work (two chunks in memory).
    pub fn send(
        &mut self,
        batch: &RecordBatch,
        gate: &impl ExecutionGate,
        after_chunk: &mut dyn FnMut(usize) -> Result<()>,
    ) -> Result<()> {
        let n = batch.num_rows();
        if n == 0 {
            return Ok(());
        }
        let arrays: Vec<ArrayRef> = self
            .columns
            .iter()
            .map(|c| {
                let a = batch.columns().get(c.source).ok_or_else(|| {
                    Error::Programming(format!("input column {} is missing from a batch", c.source))
                })?;
                normalized(a)
            })
            .collect::<Result<_>>()?;
        // Converted values take about the input's bytes, text twice that as UTF-16.
        let per_row = (batch.get_array_memory_size() * 2 / n).max(1);
        let rows_per_chunk = self.chunk_rows.min(self.chunk_bytes / per_row).max(1);
        let chunks: Vec<(usize, usize)> = (0..n)
            .step_by(rows_per_chunk)
            .map(|start| (start, rows_per_chunk.min(n - start)))
            .collect();
        let conversion = Conversion {
            columns: &self.columns,
            arrays: &arrays,
            refuse_nul: self.opts.refuse_nul,
            encoder: self.run.encoder(),
            first_row: self.rows + 1,
            row_in_errors: self.row_in_errors,
        };
        let run = &mut self.run;
        let sent = &mut self.rows;
        let mut send = |chunk: Encoded, start: usize, len: usize| -> Result<()> {
            run.send_encoded(chunk, gate)
                .map_err(|e| conversion.locate(e, start, len))?;
            *sent += len;
            after_chunk(*sent)
        };
        if let [(start, len)] = chunks[..] {
            return send(conversion.chunk(start, len)?, start, len);
        }
        std::thread::scope(|scope| {
            // Rendezvous: the converter holds the next chunk until the current one is sent.
            let (ready, received) = mpsc::sync_channel(0);
            let conversion = &conversion;
            let chunks = &chunks;
            scope.spawn(move || {
                for &(start, len) in chunks {
                    let chunk = conversion.chunk(start, len);
                    let failed = chunk.is_err();
                    // An error on the sending side drops `received`: stop there.
                    if ready.send(chunk.map(|c| (c, start, len))).is_err() || failed {
                        break;
                    }
                }
            });
            for chunk in received {
                let (chunk, start, len) = chunk?;
                send(chunk, start, len)?;
            }
            Ok(())
        })
    }

    /// SQL_SUCCESS_WITH_INFO records of every execution so far.
    pub fn messages(&self) -> &[DiagRecord] {
        self.run.messages()
    }

    /// The rows the driver counted (-1: unknown); `rows()` is what was sent.
    pub fn finish(self) -> i64 {
        self.run.finish()
    }
}

/// Converts chunks of one batch into what `ExecuteMany::send_encoded` takes; shared with the
/// thread that converts ahead of the sending one.
struct Conversion<'a> {
    columns: &'a [LoadColumn],
    /// The batch's columns, in `columns`' order.
    arrays: &'a [ArrayRef],
    refuse_nul: bool,
    encoder: Encoder,
    /// The input row (counted from 1) of the batch's first row.
    first_row: usize,
    /// `Strategy::array_row_in_errors`.
    row_in_errors: bool,
}

impl Conversion<'_> {
    /// The `len` rows from `start` of the batch, checked, converted and encoded.
    fn chunk(&self, start: usize, len: usize) -> Result<Encoded> {
        let mut rows: Vec<Vec<ParamValue>> = (0..len)
            .map(|_| Vec::with_capacity(self.arrays.len()))
            .collect();
        for (c, array) in self.columns.iter().zip(self.arrays) {
            let part = array.slice(start, len);
            let at = At {
                column: &c.target.name,
                sql_type: &c.type_text,
                nullable: c.target.nullable,
                refuse_nul: self.refuse_nul,
                first_row: self.first_row + start,
            };
            write_column(part.as_ref(), &c.writer, &mut rows, &at)?;
        }
        Ok(self.encoder.encode(rows))
    }

    /// The database's error about the chunk of `len` rows from `start`, told where it is in
    /// the input: the chunk's input rows, or the row (and the value, where the column is
    /// named) the driver's message names (`Strategy::array_row_in_errors`).
    fn locate(&self, e: Error, start: usize, len: usize) -> Error {
        let Error::Odbc {
            function,
            mut diagnostics,
        } = e
        else {
            return e;
        };
        let first = self.first_row + start;
        let mut note = if len == 1 {
            format!(" [the load's input row {first}]")
        } else {
            format!(" [the load's input rows {first} to {}]", first + len - 1)
        };
        if let Some(record) = diagnostics.records.first_mut() {
            let within = self
                .row_in_errors
                .then(|| row_named(&record.message))
                .flatten()
                .filter(|&n| n >= 1 && n <= len);
            if let Some(n) = within {
                note = format!(" [the load's input row {}", first + n - 1);
                if let Some(value) = column_named(&record.message)
                    .and_then(|name| self.value_text(name, start + n - 1))
                {
                    note.push_str(&format!(", value {value}"));
                }
                note.push(']');
            }
            record.message.push_str(&note);
        }
        Error::Odbc {
            function,
            diagnostics,
        }
    }

    /// The input value of target column `name` at batch row `row`, as text.
    fn value_text(&self, name: &str, row: usize) -> Option<String> {
        let k = self
            .columns
            .iter()
            .position(|c| c.target.name.eq_ignore_ascii_case(name))?;
        let array = self.arrays.get(k)?;
        if row >= array.len() {
            return None;
        }
        let options = arrow_cast::display::FormatOptions::default().with_null("NULL");
        let formatter = arrow_cast::display::ArrayFormatter::try_new(array, &options).ok()?;
        Some(formatter.value(row).to_string())
    }
}

/// N of a message's `at row N` (MariaDB's).
fn row_named(message: &str) -> Option<usize> {
    let at = message.rfind("at row ")?;
    let digits: String = message[at + 7..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The name in a message's `column 'name'` (MariaDB's).
fn column_named(message: &str) -> Option<&str> {
    let at = message.find("column '")? + 8;
    let rest = message.get(at..)?;
    rest.find('\'').and_then(|end| rest.get(..end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mariadb_message_names_its_row_and_column() {
        let m = "[ma-3.1.15][10.11.19-MariaDB]Out of range value for column 'd' at row 3";
        assert_eq!(row_named(m), Some(3));
        assert_eq!(column_named(m), Some("d"));
        assert_eq!(row_named("duplicate key value"), None);
        assert_eq!(column_named("column 'unclosed"), None);
    }
}
