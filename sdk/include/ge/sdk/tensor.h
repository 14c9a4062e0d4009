// ge/sdk/tensor.h — a typed, shaped block of memory, owning or viewing.
#pragma once
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "ge/sdk/types.h"

namespace ge {

/// A tensor: dtype, shape, format and a pointer to contiguous elements (row-major in the
/// logical shape for ND/NCHW; in the blocked order for blocked formats).
///
/// Ownership: `holder` keeps the memory alive; a view (see Tensor::view) has an empty holder and
/// is valid only while its owner lives. Copying a Tensor copies the handle, not the elements.
class Tensor {
 public:
  Tensor() = default;

  /// A new 64-byte aligned, zero-filled buffer of format_storage_numel(shape, format) elements
  /// (`shape` is the logical shape; blocked formats pad, see types.h).
  static Tensor allocate(DataType dtype, Shape shape, Format format = Format::ND);
  /// Wraps memory owned elsewhere; keepalive (may be null) is held as long as the tensor.
  static Tensor wrap(DataType dtype, Shape shape, void* data, std::shared_ptr<void> keepalive,
                     Format format = Format::ND);
  /// A non-owning view.
  static Tensor view(DataType dtype, Shape shape, void* data, Format format = Format::ND) {
    return wrap(dtype, std::move(shape), data, nullptr, format);
  }
  /// Deep copy into a fresh buffer.
  Tensor clone() const;

  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  Format format() const { return format_; }
  int64_t numel() const { return shape_.numel(); }
  /// Stored elements: numel() for plain formats, padding included for blocked ones (types.h).
  int64_t storage_numel() const { return format_storage_numel(shape_.dims(), format_); }
  /// Bytes of the buffer: storage_numel() * dtype size (padded for blocked formats).
  size_t nbytes() const { return static_cast<size_t>(storage_numel()) * dtype_size(dtype_); }
  bool empty() const { return data_ == nullptr && numel() != 0; }

  void* data() { return data_; }
  const void* data() const { return data_; }
  template <class T> T* data_as() { return static_cast<T*>(data_); }
  template <class T> const T* data_as() const { return static_cast<const T*>(data_); }
  template <class T> std::span<const T> span() const { return {data_as<T>(), static_cast<size_t>(numel())}; }
  template <class T> std::span<T> span() { return {data_as<T>(), static_cast<size_t>(numel())}; }

  /// Rebinds the data pointer (the runtime binds arena offsets this way); drops ownership.
  void set_data(void* p) { data_ = p; holder_.reset(); }
  /// Same elements seen under another shape of equal numel (Reshape as a view).
  Tensor reshaped(Shape s) const;

  /// Elements converted to int64 (any integer or bool dtype); throws ge::Error otherwise.
  std::vector<int64_t> to_int64_vector() const;
  /// Elements converted to double (any numeric dtype).
  std::vector<double> to_double_vector() const;

 private:
  DataType dtype_ = DataType::Undefined;
  Shape shape_;
  Format format_ = Format::ND;
  void* data_ = nullptr;
  std::shared_ptr<void> holder_;
};

/// Converts IEEE binary16 bits to float and back (round to nearest even).
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);

}  // namespace ge
