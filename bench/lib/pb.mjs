// The few pieces of ONNX's protobuf format the harness needs, read by hand (no dependencies):
// TensorProto files (input_K.pb / output_K.pb), the node count of a ModelProto's graph, and a
// copy of a model whose graph inputs no longer list its initializers.
// Field numbers are those of onnx/onnx.proto (ModelProto.graph = 7, GraphProto.node = 1,
// .initializer = 5, .input = 11; TensorProto as in TENSOR_FIELDS below).

const WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5;

class Reader {
  constructor(buf, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }
  done() { return this.pos >= this.end; }
  varint() {  // as BigInt: int64 fields need all 64 bits
    let result = 0n, shift = 0n;
    for (;;) {
      if (this.pos >= this.end) throw new Error('truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
      if (shift > 70n) throw new Error('varint too long');
    }
  }
  uint() {  // a varint known to be small (tags, lengths, enums)
    let result = 0, mul = 1;
    for (;;) {
      if (this.pos >= this.end) throw new Error('truncated varint');
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * mul;
      if (!(b & 0x80)) return result;
      mul *= 128;
      if (mul > 2 ** 56) throw new Error('varint too long');
    }
  }
  // Next field as {field, wire, start, end} (start..end: the payload; for LEN without the length).
  field() {
    const tagStart = this.pos;
    const tag = this.uint();
    const field = Math.floor(tag / 8), wire = tag & 7;
    let start = this.pos;
    switch (wire) {
      case WIRE_VARINT: this.varint(); break;
      case WIRE_I64: this.pos += 8; break;
      case WIRE_I32: this.pos += 4; break;
      case WIRE_LEN: { const n = this.uint(); start = this.pos; this.pos += n; break; }
      default: throw new Error(`unsupported wire type ${wire} (field ${field})`);
    }
    if (this.pos > this.end) throw new Error(`field ${field} runs past the end of its message`);
    return { field, wire, tagStart, start, end: this.pos };
  }
}

// ONNX TensorProto.DataType → onnxruntime-node type name and typed array.
const DTYPES = {
  1: ['float32', Float32Array], 2: ['uint8', Uint8Array], 3: ['int8', Int8Array],
  4: ['uint16', Uint16Array], 5: ['int16', Int16Array], 6: ['int32', Int32Array],
  7: ['int64', BigInt64Array], 9: ['bool', Uint8Array], 10: ['float16', Uint16Array],
  11: ['float64', Float64Array], 12: ['uint32', Uint32Array], 13: ['uint64', BigUint64Array],
};

const TENSOR_FIELDS = { dims: 1, data_type: 2, float_data: 4, int32_data: 5, string_data: 6, int64_data: 7,
  name: 8, raw_data: 9, double_data: 10, uint64_data: 11, data_location: 14 };

// Decodes a serialized onnx.TensorProto into {name, dims, type, data} (data: a typed array).
export function decodeTensor(buf) {
  const r = new Reader(buf);
  const dims = [];
  let dataType = 0, name = '', raw = null;
  const vals = [];  // elements of the typed *_data fields, as Number or BigInt
  const eachVarint = (f, fn) => {
    if (f.wire === WIRE_LEN) { const s = new Reader(buf, f.start, f.end); while (!s.done()) fn(s.varint()); }
    else { const s = new Reader(buf, f.start, f.end); fn(s.varint()); }
  };
  while (!r.done()) {
    const f = r.field();
    switch (f.field) {
      case TENSOR_FIELDS.dims: eachVarint(f, (v) => dims.push(Number(BigInt.asIntN(64, v)))); break;
      case TENSOR_FIELDS.data_type: dataType = Number(new Reader(buf, f.start, f.end).varint()); break;
      case TENSOR_FIELDS.name: name = buf.toString('utf8', f.start, f.end); break;
      case TENSOR_FIELDS.raw_data: raw = buf.subarray(f.start, f.end); break;
      case TENSOR_FIELDS.float_data:
        if (f.wire === WIRE_LEN) for (let p = f.start; p < f.end; p += 4) vals.push(buf.readFloatLE(p));
        else vals.push(buf.readFloatLE(f.start));
        break;
      case TENSOR_FIELDS.double_data:
        if (f.wire === WIRE_LEN) for (let p = f.start; p < f.end; p += 8) vals.push(buf.readDoubleLE(p));
        else vals.push(buf.readDoubleLE(f.start));
        break;
      case TENSOR_FIELDS.int32_data: eachVarint(f, (v) => vals.push(Number(BigInt.asIntN(32, v)))); break;
      case TENSOR_FIELDS.int64_data: eachVarint(f, (v) => vals.push(BigInt.asIntN(64, v))); break;
      case TENSOR_FIELDS.uint64_data: eachVarint(f, (v) => vals.push(BigInt.asUintN(64, v))); break;
      case TENSOR_FIELDS.string_data: throw new Error('string tensors are not supported');
      case TENSOR_FIELDS.data_location:
        if (Number(new Reader(buf, f.start, f.end).varint()) === 1) throw new Error('external data is not supported');
        break;
      default: break;  // segment, doc_string, external_data, metadata: not needed
    }
  }
  const dt = DTYPES[dataType];
  if (!dt) throw new Error(`unsupported TensorProto data_type ${dataType}`);
  const [type, Arr] = dt;
  const count = dims.reduce((a, b) => a * b, 1);
  let data;
  if (raw) {
    if (raw.length !== count * Arr.BYTES_PER_ELEMENT)
      throw new Error(`raw_data holds ${raw.length} bytes, dims ${JSON.stringify(dims)} of ${type} need ${count * Arr.BYTES_PER_ELEMENT}`);
    const copy = new ArrayBuffer(raw.length);  // aligned copy
    new Uint8Array(copy).set(raw);
    data = new Arr(copy);
  } else {
    if (vals.length !== count) throw new Error(`tensor '${name}' has ${vals.length} values, dims need ${count}`);
    const big = Arr === BigInt64Array || Arr === BigUint64Array;
    data = new Arr(count);
    for (let i = 0; i < count; ++i) data[i] = big ? BigInt(vals[i]) : Number(vals[i]);
  }
  return { name, dims, type, data };
}

function graphRange(buf) {
  const r = new Reader(buf);
  while (!r.done()) {
    const f = r.field();
    if (f.field === 7 && f.wire === WIRE_LEN) return f;
  }
  throw new Error('model has no graph');
}

// Number of nodes in the model's main graph (subgraphs of If/Loop not counted).
export function countGraphNodes(buf) {
  const g = graphRange(buf);
  const r = new Reader(buf, g.start, g.end);
  let n = 0;
  while (!r.done()) if (r.field().field === 1) ++n;
  return n;
}

function encodeVarint(n) {
  const out = [];
  while (n >= 0x80) { out.push((n % 128) | 0x80); n = Math.floor(n / 128); }
  out.push(n);
  return Buffer.from(out);
}

function stringField(buf, f, fieldNo) {  // the first string field `fieldNo` inside message f
  const r = new Reader(buf, f.start, f.end);
  while (!r.done()) {
    const g = r.field();
    if (g.field === fieldNo && g.wire === WIRE_LEN) return buf.toString('utf8', g.start, g.end);
  }
  return '';
}

// Older ONNX IR versions list initializers among the graph inputs; ORT then treats them as
// overridable and does not constant-fold them, while GE treats them as constants. Returns
// {buf, removed}: the model with those inputs dropped (buf unchanged when there are none).
export function withoutInitializerInputs(buf) {
  const g = graphRange(buf);
  const fields = [];
  const inits = new Set();
  for (const r = new Reader(buf, g.start, g.end); !r.done();) {
    const f = r.field();
    fields.push(f);
    if (f.field === 5 && f.wire === WIRE_LEN) inits.add(stringField(buf, f, 8));
  }
  const kept = fields.filter((f) => !(f.field === 11 && inits.has(stringField(buf, f, 1))));
  const removed = fields.length - kept.length;
  if (removed === 0) return { buf, removed };
  const graph = Buffer.concat(kept.map((f) => buf.subarray(f.tagStart, f.end)));
  const graphField = Buffer.concat([encodeVarint(7 * 8 + WIRE_LEN), encodeVarint(graph.length), graph]);
  // The graph field is replaced in place; every other top-level field is copied as it was.
  const out = Buffer.concat([buf.subarray(0, g.tagStart), graphField, buf.subarray(g.end)]);
  return { buf: out, removed };
}

function lenField(fieldNo, payload) {
  return Buffer.concat([encodeVarint(fieldNo * 8 + WIRE_LEN), encodeVarint(payload.length), payload]);
}
function varintField(fieldNo, n) { return Buffer.concat([encodeVarint(fieldNo * 8 + WIRE_VARINT), encodeVarint(n)]); }

// A serialized onnx.TensorProto: dims, data_type (the ONNX enum) and raw_data, named `name`.
export function encodeTensor({ name, dims, dataType, raw }) {
  return Buffer.concat([
    ...dims.map((d) => varintField(TENSOR_FIELDS.dims, d)),
    varintField(TENSOR_FIELDS.data_type, dataType),
    lenField(TENSOR_FIELDS.name, Buffer.from(name, 'utf8')),
    lenField(TENSOR_FIELDS.raw_data, raw),
  ]);
}

// The ONNX data_type enum of a decodeTensor() type name.
export function dataTypeOf(type) {
  for (const [k, [t]] of Object.entries(DTYPES)) if (t === type) return Number(k);
  throw new Error(`no ONNX data type for '${type}'`);
}

// The element type (TypeProto.Tensor.elem_type) of a ValueInfoProto message f, or 0, and the
// rank of its shape (null when it has none).
function tensorType(buf, f) {
  const find = (start, end, no) => {
    for (const r = new Reader(buf, start, end); !r.done();) { const g = r.field(); if (g.field === no) return g; }
    return null;
  };
  const type = find(f.start, f.end, 2);                    // ValueInfoProto.type
  const tensor = type && find(type.start, type.end, 1);    // TypeProto.tensor_type
  const elem = tensor && find(tensor.start, tensor.end, 1);  // TypeProto.Tensor.elem_type
  const shape = tensor && find(tensor.start, tensor.end, 2);  // TypeProto.Tensor.shape
  let rank = null;
  if (shape) {
    rank = 0;
    for (const r = new Reader(buf, shape.start, shape.end); !r.done();) if (r.field().field === 1) ++rank;
  }
  return { elem: elem ? Number(new Reader(buf, elem.start, elem.end).varint()) : 0, rank };
}

// A ValueInfoProto {name, type: {tensor_type: {elem_type, shape}}}: each dim a number
// (dim_value) or a string (dim_param); `dims` null: no shape.
function valueInfo(name, elem, dims) {
  const dim = (d) => lenField(1, typeof d === 'string' ? lenField(2, Buffer.from(d, 'utf8')) : varintField(1, d));
  const tensor = [varintField(1, elem)];
  if (dims) tensor.push(lenField(2, Buffer.concat(dims.map(dim))));
  return Buffer.concat([lenField(1, Buffer.from(name, 'utf8')), lenField(2, lenField(1, Buffer.concat(tensor)))]);
}

// The model with the graph inputs named in `shapes` (name → dims) declared with those dims, the
// graph outputs' dims made symbolic (out0_d0, ...) and no value_info (shape hints that would
// contradict the new dims): how the bench gives the ORT peer a batch the exported model fixed at 1.
export function withInputShapes(buf, shapes) {
  const g = graphRange(buf);
  const parts = [];
  const seen = new Set();
  let outputs = 0;
  for (const r = new Reader(buf, g.start, g.end); !r.done();) {
    const f = r.field();
    const name = f.wire === WIRE_LEN && (f.field === 11 || f.field === 12) ? stringField(buf, f, 1) : null;
    if (f.field === 11 && f.wire === WIRE_LEN && shapes[name]) {
      parts.push(lenField(11, valueInfo(name, tensorType(buf, f).elem, shapes[name])));
      seen.add(name);
    } else if (f.field === 12 && f.wire === WIRE_LEN) {
      const { elem, rank } = tensorType(buf, f);
      const o = outputs++;
      parts.push(lenField(12, valueInfo(name, elem, rank === null ? null : Array.from({ length: rank }, (_, i) => `out${o}_d${i}`))));
    } else if (f.field !== 13) {
      parts.push(buf.subarray(f.tagStart, f.end));
    }
  }
  for (const n of Object.keys(shapes)) if (!seen.has(n)) throw new Error(`the model has no graph input '${n}'`);
  const graph = Buffer.concat(parts);
  return Buffer.concat([buf.subarray(0, g.tagStart), lenField(7, graph), buf.subarray(g.end)]);
}
