//! What the Python-rows consumer does on the fetch thread while the caller still converts the
//! block before (`BlockConsumer::prepare`): the PEP 393 shape of every text value, so the
//! caller allocates each `str` without a shape pass of its own, and the numbers of columns
//! fetched as text (`Strategy::plan`), so it only builds the objects.

use fastodbc_core::types::numeric::NumberText;
use fastodbc_core::{BlockConsumer, BlockNotes, Cell, ResultPlan, RowBlock, TextCodec, ValueKind};

use crate::{utf16_shape, utf16_units, utf8_shape, TextKind, TextShape};

/// The Python-rows consumer's preparation of blocks read ahead.
#[derive(Debug, Default, Clone, Copy)]
pub struct RowsPreparation;

impl BlockConsumer for RowsPreparation {
    fn prepare(&self, plan: &ResultPlan, block: &RowBlock, notes: &mut BlockNotes) {
        notes.fill(|prepared: &mut PreparedRows| prepared.describe(plan, block));
    }
}

/// What `RowsPreparation` found about one block: one entry per bound column
/// (`text_shape`, `number`).
#[derive(Default)]
pub struct PreparedRows {
    described: Vec<Described>,
}

/// A text value's `TextShape` in one word: characters << 3 | kind + 1; 0 when unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ShapeCell(u64);

impl ShapeCell {
    const UNKNOWN: ShapeCell = ShapeCell(0);

    #[inline]
    fn of(shape: Option<TextShape>) -> ShapeCell {
        match shape {
            Some(s) => ShapeCell(((s.chars as u64) << 3) | (s.kind as u64 + 1)),
            None => ShapeCell::UNKNOWN,
        }
    }

    #[inline]
    fn shape(self) -> Option<TextShape> {
        let kind = match self.0 & 7 {
            1 => TextKind::Ascii,
            2 => TextKind::Latin1,
            3 => TextKind::Ucs2,
            4 => TextKind::Ucs4,
            _ => return None,
        };
        Some(TextShape {
            kind,
            chars: (self.0 >> 3) as usize,
        })
    }
}

/// What `RowBlock::describe` found about the values of one bound column.
#[derive(Default)]
enum Described {
    #[default]
    Nothing,
    /// The shape of each text value (`ShapeCell::UNKNOWN` for NULL or invalid text).
    Text(Vec<ShapeCell>),
    /// Each number read from its text (`Strategy::plan`: `numbers_as_text`, `integers_as_text`):
    /// `kinds` says what `bits` hold (`NUMBER_INT`, `NUMBER_FLOAT`, or `NUMBER_UNKNOWN` for
    /// NULL and text that is no number), so the consumer only builds the object.
    Numbers { kinds: Vec<u8>, bits: Vec<u64> },
}

const NUMBER_UNKNOWN: u8 = 0;
const NUMBER_INT: u8 = 1;
const NUMBER_FLOAT: u8 = 2;

impl PreparedRows {
    /// Does ahead what the consumer would do first with each value: finds the shape of every
    /// UTF-8 and UTF-16 text value (valid text only), so the consumer allocates its string
    /// without a shape pass of its own, and reads the numbers of columns fetched as text. The
    /// thread that read the block ahead does this when it has time to spare
    /// (`Statement::read_ahead`).
    fn describe(&mut self, plan: &ResultPlan, block: &RowBlock) {
        let rows = block.len();
        let mut described = std::mem::take(&mut self.described);
        described.resize_with(block.bound.len(), Described::default);
        for (col, (column, described)) in plan.columns.iter().zip(&mut described).enumerate() {
            let utf8 = match (column.kind, &column.codec) {
                (ValueKind::Text, Some(TextCodec::Utf8)) => true,
                (ValueKind::Text, Some(TextCodec::Utf16)) => false,
                (ValueKind::Int | ValueKind::Float, Some(TextCodec::Utf8)) => {
                    describe_numbers(block, col, column.kind == ValueKind::Int, described);
                    continue;
                }
                _ => {
                    *described = Described::Nothing;
                    continue;
                }
            };
            if !matches!(described, Described::Text(_)) {
                *described = Described::Text(Vec::new());
            }
            let Described::Text(shapes) = described else {
                continue;
            };
            shapes.clear();
            shapes.extend((0..rows).map(|row| match block.cell(col, row) {
                Cell::Value(b) if utf8 => ShapeCell::of(utf8_shape(b).ok()),
                Cell::Value(b) => ShapeCell::of(utf16_units(b).and_then(|u| utf16_shape(u).ok())),
                Cell::Null => ShapeCell::UNKNOWN,
            }));
        }
        self.described = described;
    }

    /// The shape `describe` found for the text value of bound column `col`, row `row`: the
    /// value (`cell`) is valid text of that shape.
    #[inline]
    pub fn text_shape(&self, col: usize, row: usize) -> Option<TextShape> {
        match self.described.get(col)? {
            Described::Text(shapes) => shapes.get(row)?.shape(),
            _ => None,
        }
    }

    /// The number `describe` read from the text of bound column `col`, row `row`: an integer
    /// or a float, never `NumberText::Text` (`None` then, as for NULL or not described).
    #[inline]
    pub fn number(&self, col: usize, row: usize) -> Option<NumberText> {
        let Described::Numbers { kinds, bits } = self.described.get(col)? else {
            return None;
        };
        let bits = *bits.get(row)?;
        match *kinds.get(row)? {
            NUMBER_INT => Some(NumberText::Int(bits as i64)),
            NUMBER_FLOAT => Some(NumberText::Float(f64::from_bits(bits))),
            _ => None,
        }
    }
}

/// Reads the numbers of text-fetched column `col` as the consumer would
/// (`NumberText::integer_in_element` / `NumberText::float`).
fn describe_numbers(block: &RowBlock, col: usize, int: bool, described: &mut Described) {
    if !matches!(described, Described::Numbers { .. }) {
        *described = Described::Numbers {
            kinds: Vec::new(),
            bits: Vec::new(),
        };
    }
    let Described::Numbers { kinds, bits } = described else {
        return;
    };
    kinds.clear();
    bits.clear();
    for row in 0..block.len() {
        let n = match block.value_in_element(col, row) {
            Some((element, len)) if int => NumberText::integer_in_element(element, len),
            _ => match block.cell(col, row) {
                Cell::Value(b) if int => NumberText::integer(b),
                Cell::Value(b) => NumberText::float(b),
                Cell::Null => NumberText::Text,
            },
        };
        let (kind, value) = match n {
            NumberText::Int(v) => (NUMBER_INT, v as u64),
            NumberText::Float(v) => (NUMBER_FLOAT, v.to_bits()),
            NumberText::Text => (NUMBER_UNKNOWN, 0),
        };
        kinds.push(kind);
        bits.push(value);
    }
}

#[cfg(test)]
mod tests;
