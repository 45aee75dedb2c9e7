//! Tensors as the backend layer sees them: the one module that reads and writes the fields of
//! `ggml_tensor`.
//!
//! A [`Tensor`] is a handle like the others of this layer: made (unsafely) from a pointer that C
//! vouches for, then used through safe accessors. Tensors belong to ggml contexts that outlive
//! every call the backend layer makes with them, and a backend, buffer or scheduler is not used
//! from two threads at once (the ggml API's rules), so an accessor never races with a writer.

use crate::abi::*;
use crate::base::ggml::ggml_nbytes;
use crate::base::text::Lossy;
use alloc::boxed::Box;
use core::ffi::{c_char, c_void, CStr};
use core::ptr::NonNull;

/// Reads field `$field` of a tensor. Fields are read and written through raw pointers without
/// assuming the struct's alignment: on 32-bit ARM, ggml places tensors at 4-byte boundaries
/// although the struct's int64_t fields give it an alignment of 8, so a Rust reference to the
/// whole struct would be misaligned.
macro_rules! get {
    ($tensor:expr, $field:ident) => {
        // SAFETY: a Tensor is only made from a live tensor (see from_raw); the read makes no
        // alignment assumption.
        unsafe { core::ptr::addr_of!((*$tensor.0.as_ptr()).$field).read_unaligned() }
    };
}

/// Writes field `$field` of a tensor (see `get!`).
macro_rules! set {
    ($tensor:expr, $field:ident, $value:expr) => {{
        let value = $value;
        // SAFETY: live (from_raw), not used from another thread meanwhile (module docs); the
        // write makes no alignment assumption.
        unsafe { core::ptr::addr_of_mut!((*$tensor.0.as_ptr()).$field).write_unaligned(value) }
    }};
}

/// A live `ggml_tensor`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
#[repr(transparent)]
pub struct Tensor(NonNull<ggml_tensor>);

impl Tensor {
    /// # Safety
    /// `ptr` is NULL or points to a tensor that stays live while the handle is used.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *const ggml_tensor) -> Option<Tensor> {
        NonNull::new(ptr.cast_mut()).map(Tensor)
    }

    /// The handle of a tensor this library made: it lives until freed.
    pub fn leak(tensor: Box<ggml_tensor>) -> Tensor {
        Tensor(NonNull::from(Box::leak(tensor)))
    }

    #[inline(always)]
    pub fn as_ptr(self) -> *mut ggml_tensor {
        self.0.as_ptr()
    }

    /// The address, as the scheduler's tensor map keys tensors.
    #[inline(always)]
    pub fn addr(self) -> usize {
        self.0.as_ptr() as usize
    }

    /// The buffer field (see `Tensor::buffer` in `crate::handle`).
    #[inline(always)]
    pub fn buffer_ptr(self) -> ggml_backend_buffer_t {
        get!(self, buffer)
    }

    #[inline(always)]
    pub fn data(self) -> *mut c_void {
        get!(self, data)
    }

    /// Places the tensor at `data` inside the buffer `buffer`.
    pub fn set_buffer_ptr_and_data(self, buffer: ggml_backend_buffer_t, data: *mut c_void) {
        set!(self, buffer, buffer);
        set!(self, data, data);
    }

    #[inline(always)]
    pub fn view_src(self) -> Option<Tensor> {
        let view_src = get!(self, view_src);
        // SAFETY: a tensor's view source is NULL or a live tensor of the same context.
        unsafe { Tensor::from_raw(view_src) }
    }

    pub fn view_offs(self) -> usize {
        get!(self, view_offs)
    }

    #[inline(always)]
    pub fn op(self) -> ggml_op {
        get!(self, op)
    }

    /// Whether its type is a quantized one.
    #[cfg(op_alloc_size_may_expand)]
    pub fn is_quantized(self) -> bool {
        let r#type = get!(self, r#type);
        // SAFETY: ggml's function of a live tensor's type.
        unsafe { crate::base::ggml::ggml_is_quantized(r#type) }
    }

    pub fn op_name(self) -> Lossy<'static> {
        // SAFETY: ggml returns a static string for any op value.
        unsafe { c_str_lossy(crate::base::ggml::ggml_op_name(self.op())) }
    }

    /// The op's name, or for unary and gated ops the function's ("GELU").
    pub fn op_desc(self) -> Lossy<'static> {
        // SAFETY: a live tensor; ggml returns a static string for it.
        unsafe { c_str_lossy(crate::base::ggml::ggml_op_desc(self.as_ptr())) }
    }

    #[inline(always)]
    pub fn is_view_op(self) -> bool {
        is_view_op(self.op())
    }

    #[inline(always)]
    pub fn is_input(self) -> bool {
        get!(self, flags) & GGML_TENSOR_FLAG_INPUT != 0
    }

    /// Marks the tensor as a graph input and output, so that ggml-alloc never reuses its memory.
    pub fn keep_allocated(self) {
        set!(self, flags, get!(self, flags) | GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT);
    }

    /// The sources, with a slot for each (None where the slot is empty).
    #[inline(always)]
    pub fn srcs<'a>(self) -> &'a [Option<Tensor>; GGML_MAX_SRC] {
        // SAFETY: Option<Tensor> has the layout of a nullable pointer; every source is NULL or
        // a live tensor; the array is pointer-aligned (ggml aligns tensors to at least that) and
        // lives as long as the tensor.
        unsafe { &*(core::ptr::addr_of!((*self.0.as_ptr()).src) as *const [Option<Tensor>; GGML_MAX_SRC]) }
    }

    pub fn set_src(self, slot: usize, src: Tensor) {
        assert!(slot < GGML_MAX_SRC);
        // SAFETY: live, not used elsewhere meanwhile; the slot is inside the array.
        unsafe {
            core::ptr::addr_of_mut!((*self.0.as_ptr()).src)
                .cast::<*mut ggml_tensor>()
                .add(slot)
                .write_unaligned(src.as_ptr())
        }
    }

    pub fn nbytes(self) -> usize {
        // SAFETY: the tensor is live.
        unsafe { ggml_nbytes(self.as_ptr()) }
    }

    /// Same type, shape and strides.
    pub fn same_layout(self, other: Tensor) -> bool {
        get!(self, r#type) == get!(other, r#type)
            && get!(self, ne) == get!(other, ne)
            && get!(self, nb) == get!(other, nb)
    }

    /// The name's bytes, without the NUL.
    pub fn name_bytes(&self) -> &[u8] {
        // SAFETY: the name is a byte array (alignment 1) inside the live tensor.
        let name = unsafe { &*core::ptr::addr_of!((*self.0.as_ptr()).name).cast::<[u8; GGML_MAX_NAME]>() };
        let len = name.iter().position(|&c| c == 0).unwrap_or(GGML_MAX_NAME);
        &name[..len]
    }

    /// The name for messages.
    pub fn name(&self) -> Lossy<'_> {
        Lossy(self.name_bytes())
    }

    pub fn name_ptr(self) -> *const c_char {
        // SAFETY: a field address inside the live tensor, not dereferenced here.
        unsafe { core::ptr::addr_of!((*self.0.as_ptr()).name) as *const c_char }
    }

    /// Writes `parts` into the name, truncated to what fits (as snprintf would).
    pub fn set_name(self, parts: &[&[u8]]) {
        // SAFETY: the name is a byte array (alignment 1) inside the live tensor, which nobody
        // else uses meanwhile.
        let name = unsafe { &mut *core::ptr::addr_of_mut!((*self.0.as_ptr()).name).cast::<[u8; GGML_MAX_NAME]>() };
        let mut len = 0;
        for part in parts {
            let n = part.len().min(GGML_MAX_NAME - 1 - len);
            name[len..len + n].copy_from_slice(&part[..n]);
            len += n;
        }
        name[len] = 0;
    }

    /// Copies the operation (op and parameters, and with `graph_copy_flags` the flags) of `src`;
    /// the graph copy links sources and view sources itself.
    pub fn copy_op_from(self, src: Tensor) {
        set!(self, op, get!(src, op));
        #[cfg(graph_copy_flags)]
        set!(self, flags, get!(src, flags));
        set!(self, op_params, get!(src, op_params));
    }

    pub fn set_view_src(self, view_src: Tensor, view_offs: usize) {
        set!(self, view_src, view_src.as_ptr());
        set!(self, view_offs, view_offs);
    }

    /// A new tensor value with this tensor's type, shape and strides and nothing else: no data,
    /// no sources, no name (ggml's dup_tensor with the layout kept).
    pub fn layout_only(self) -> ggml_tensor {
        ggml_tensor {
            r#type: get!(self, r#type),
            buffer: core::ptr::null_mut(),
            ne: get!(self, ne),
            nb: get!(self, nb),
            op: GGML_OP_NONE,
            op_params: [0; GGML_MAX_OP_PARAMS / 4],
            flags: 0,
            src: [core::ptr::null_mut(); GGML_MAX_SRC],
            view_src: core::ptr::null_mut(),
            view_offs: 0,
            data: core::ptr::null_mut(),
            name: [0; GGML_MAX_NAME],
            extra: core::ptr::null_mut(),
            padding: [0; 8],
        }
    }

    /// A view of this tensor that depends on it (ggml's view_tensor with this tensor as its
    /// source): it keeps the tensor alive in ggml-alloc until the view is used.
    pub fn dependent_view(self) -> ggml_tensor {
        let (view_src, view_offs) = match self.view_src() {
            Some(v) => (v, self.view_offs()),
            None => (self, 0),
        };
        let data = view_src.data();
        let mut view = self.layout_only();
        view.view_src = view_src.as_ptr();
        view.view_offs = view_offs;
        view.data = if data.is_null() { data } else { data.wrapping_byte_add(view_offs) };
        view.src[0] = self.as_ptr();
        view
    }

    pub fn flags(self) -> i32 {
        get!(self, flags)
    }

    pub fn set_flags(self, flags: i32) {
        set!(self, flags, flags);
    }

    /// Copies `src`'s strides (ggml_dup_tensor makes contiguous ones).
    pub fn copy_strides_from(self, src: Tensor) {
        set!(self, nb, get!(src, nb));
    }
}

/// The bytes of a tensor from its buffer field up to its data address: buffer, shape, strides,
/// op, op parameters, flags, sources, view source and view offset. Together with the type, what
/// a tensor is and where it comes from, apart from where its bytes are and its name.
const DESCRIBED: core::ops::Range<usize> =
    core::mem::offset_of!(ggml_tensor, buffer)..core::mem::offset_of!(ggml_tensor, data);
const DESCRIBED_LEN: usize = DESCRIBED.end - DESCRIBED.start;
// The range holds its fields and no padding on every target (padding bytes are not values).
const _: () = assert!(
    DESCRIBED_LEN == size_of::<usize>() * (1 + 4 + GGML_MAX_SRC + 2) + 8 * 4 + 4 * (1 + GGML_MAX_OP_PARAMS / 4 + 1)
);

/// See [`Tensor::description`]: equal descriptions mean equal tensors to everyone who does not
/// read the data or the name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Description {
    r#type: ggml_type,
    fields: [u8; DESCRIBED_LEN],
}

impl Tensor {
    /// The described fields (see `DESCRIBED`), in place.
    #[inline(always)]
    fn described_bytes<'a>(self) -> &'a [u8; DESCRIBED_LEN] {
        // SAFETY: the range lies inside the live tensor and holds only fields (checked above), so
        // every byte is initialized; bytes need no alignment; nobody writes the tensor meanwhile
        // (module docs).
        unsafe { &*self.0.as_ptr().cast::<u8>().add(DESCRIBED.start).cast::<[u8; DESCRIBED_LEN]>() }
    }

    /// The type and the described fields, copied.
    pub fn description(self) -> Description {
        Description { r#type: get!(self, r#type), fields: *self.described_bytes() }
    }

    /// Makes `description` the tensor's, in place (no copy through the stack).
    pub fn describe_into(self, description: &mut Description) {
        description.r#type = get!(self, r#type);
        description.fields.copy_from_slice(self.described_bytes());
    }

    /// Whether the tensor is as `description` describes, without copying it.
    #[inline(always)]
    pub fn is_described_by(self, description: &Description) -> bool {
        get!(self, r#type) == description.r#type && self.described_bytes() == &description.fields
    }
}

/// What the meta backend (0.6, 0.7) reads and writes of tensors, and ggml's queries of them.
#[cfg(meta)]
impl Tensor {
    pub fn r#type(self) -> ggml_type {
        get!(self, r#type)
    }

    pub fn ne(self) -> [i64; 4] {
        get!(self, ne)
    }

    pub fn nb(self) -> [usize; 4] {
        get!(self, nb)
    }

    pub fn set_nb(self, nb: [usize; 4]) {
        set!(self, nb, nb);
    }

    pub fn set_op(self, op: ggml_op) {
        set!(self, op, op);
    }

    pub fn op_params(self) -> [i32; GGML_MAX_OP_PARAMS / 4] {
        get!(self, op_params)
    }

    pub fn extra(self) -> *mut c_void {
        get!(self, extra)
    }

    pub fn set_extra(self, extra: *mut c_void) {
        set!(self, extra, extra);
    }

    /// Makes the tensor a view of `view_src` at `view_offs` (not a view for None).
    pub fn set_view(self, view_src: Option<Tensor>, view_offs: usize) {
        set!(self, view_src, view_src.map_or(core::ptr::null_mut(), Tensor::as_ptr));
        set!(self, view_offs, view_offs);
    }

    pub fn copy_name_from(self, src: Tensor) {
        set!(self, name, get!(src, name));
    }

    pub fn nelements(self) -> i64 {
        // SAFETY: ggml reads the extents of the live tensor.
        unsafe { crate::base::ggml::ggml_nelements(self.as_ptr()) }
    }

    pub fn is_contiguous(self) -> bool {
        // SAFETY: ggml reads the type, extents and strides of the live tensor.
        unsafe { crate::base::ggml::ggml_is_contiguous(self.as_ptr()) }
    }

    pub fn is_permuted(self) -> bool {
        // SAFETY: ggml reads the strides of the live tensor.
        unsafe { crate::base::ggml::ggml_is_permuted(self.as_ptr()) }
    }

    pub fn n_dims(self) -> i32 {
        // SAFETY: ggml reads the extents of the live tensor.
        unsafe { crate::base::ggml::ggml_n_dims(self.as_ptr()) }
    }

    /// The elements per block of the tensor's type (1 for unquantized types).
    pub fn blck_size(self) -> i64 {
        // SAFETY: ggml's type table answers for any type value (an unknown one aborts in ggml).
        unsafe { crate::base::ggml::ggml_blck_size(self.r#type()) }
    }

    /// Everything a derived value (the meta backend's split state) depends on: once any of it
    /// changes, the value is stale.
    pub fn fingerprint(self) -> Fingerprint {
        (self.description(), get!(self, data) as usize)
    }
}

/// See [`Tensor::fingerprint`].
#[cfg(meta)]
pub type Fingerprint = (Description, usize);

/// Reshapes, views, permutes and transposes: ops that compute nothing.
pub fn is_view_op(op: ggml_op) -> bool {
    matches!(op, GGML_OP_VIEW | GGML_OP_RESHAPE | GGML_OP_PERMUTE | GGML_OP_TRANSPOSE)
}

/// Ops whose output a buffer type may give more than its bytes, for data the backend keeps while
/// computing it (plain ggml 0.3.36's list; besides these only empty ops and quantized types may).
#[cfg(op_alloc_size_may_expand)]
pub fn alloc_size_may_expand(op: ggml_op) -> bool {
    use crate::abi::op::*;
    matches!(op, FLASH_ATTN_EXT | MUL_MAT | MUL_MAT_ID | CUMSUM | ARGSORT | TOP_K)
}

/// Borrows a C string for messages; NULL and invalid UTF-8 are shown, not trusted.
///
/// # Safety
/// `ptr` is NULL or a NUL-terminated string that outlives the result.
pub unsafe fn c_str_lossy<'a>(ptr: *const c_char) -> Lossy<'a> {
    if ptr.is_null() {
        Lossy(b"(null)")
    } else {
        // SAFETY: a NUL-terminated string (the caller's promise).
        Lossy(unsafe { CStr::from_ptr(ptr) }.to_bytes())
    }
}
