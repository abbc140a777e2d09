//! Arrow data imported through the C data interfaces with its buffers aligned. arrow-rs reads
//! a buffer as its values' type only at that type's alignment and panics otherwise, while the
//! C interfaces promise none: an Arrow IPC file read by pyarrow gives decimal128 buffers at 8
//! mod 16. arrow's own stream reader (and pyo3-arrow's) builds arrays without aligning, so the
//! load imports here, copying only the buffers that are misaligned.

use std::ffi::CStr;
use std::sync::Arc;

use arrow_array::ffi::{from_ffi, from_ffi_and_data_type, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{make_array, Array, RecordBatch, StructArray};
use arrow_schema::{ArrowError, DataType, Schema, SchemaRef};

/// A record batch from its C array and schema (`__arrow_c_array__`), aligned.
///
/// # Safety
/// `array` must be a valid C array of the type `schema` describes.
pub unsafe fn batch_from_c_array(
    array: FFI_ArrowArray,
    schema: &FFI_ArrowSchema,
) -> Result<RecordBatch, ArrowError> {
    // SAFETY: as the caller promises.
    let mut data = unsafe { from_ffi(array, schema) }?;
    data.align_buffers();
    let array = make_array(data);
    let Some(columns) = array.as_any().downcast_ref::<StructArray>() else {
        return Err(ArrowError::CDataInterface(format!(
            "a record batch is a struct array, not {}",
            array.data_type()
        )));
    };
    Ok(RecordBatch::from(columns))
}

/// A C stream of record batches (`__arrow_c_stream__`), each imported aligned.
pub struct AlignedStream {
    stream: FFI_ArrowArrayStream,
    schema: SchemaRef,
}

// SAFETY: the C stream interface lets a stream be used from any one thread at a time; the
// reader owns it and is used by one thread at a time.
unsafe impl Send for AlignedStream {}

impl AlignedStream {
    /// Takes ownership of `stream` and reads its schema.
    pub fn try_new(mut stream: FFI_ArrowArrayStream) -> Result<AlignedStream, ArrowError> {
        let Some(get_schema) = stream.get_schema else {
            return Err(ArrowError::CDataInterface("the stream is released".into()));
        };
        let mut schema = FFI_ArrowSchema::empty();
        // SAFETY: a live stream's callback, writing a schema we own.
        let code = unsafe { get_schema(&mut stream, &mut schema) };
        if code != 0 {
            let why = last_error(&mut stream).unwrap_or_else(|| format!("error code {code}"));
            return Err(ArrowError::CDataInterface(why));
        }
        let schema = Arc::new(Schema::try_from(&schema)?);
        Ok(AlignedStream { stream, schema })
    }

    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
}

fn last_error(stream: &mut FFI_ArrowArrayStream) -> Option<String> {
    let get_last_error = stream.get_last_error?;
    // SAFETY: a live stream's callback; the text it returns lives until the next call.
    let text = unsafe { get_last_error(stream) };
    if text.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated string, as the interface promises.
    Some(
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned(),
    )
}

impl Iterator for AlignedStream {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let get_next = self.stream.get_next?;
        let mut array = FFI_ArrowArray::empty();
        // SAFETY: a live stream's callback, writing an array we own.
        let code = unsafe { get_next(&mut self.stream, &mut array) };
        if code != 0 {
            let why = last_error(&mut self.stream).unwrap_or_else(|| format!("error code {code}"));
            return Some(Err(ArrowError::CDataInterface(why)));
        }
        if array.is_released() {
            return None;
        }
        let struct_type = DataType::Struct(self.schema.fields().clone());
        // SAFETY: the stream's arrays are of its schema's struct type.
        let data = unsafe { from_ffi_and_data_type(array, struct_type) };
        Some(data.map(|mut data| {
            data.align_buffers();
            RecordBatch::from(StructArray::from(data))
        }))
    }
}
