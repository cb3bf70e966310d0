// XXH3-64 (seed 0, the default secret), the checksum of each tensor in
// a weights manifest, so that a page can verify the weights it fetched.
// Written from the XXH3 specification on BigInt; nnl-emit-js pastes it
// into every module it writes.
const M64 = (1n << 64n) - 1n;
const P32_1 = 0x9E3779B1n, P32_2 = 0x85EBCA77n, P32_3 = 0xC2B2AE3Dn;
const P64_1 = 0x9E3779B185EBCA87n, P64_2 = 0xC2B2AE3D27D4EB4Fn;
const P64_3 = 0x165667B19E3779F9n, P64_4 = 0x85EBCA77C2B2AE63n;
const P64_5 = 0x27D4EB2F165667C5n;
const XXH3_SECRET = new Uint8Array([
  0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
  0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
  0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
  0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
  0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
  0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
  0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
  0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
  0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
  0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
  0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
  0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e]);

function r64(b, i) {
  let v = 0n;
  for (let k = 7; k >= 0; k--) v = (v << 8n) | BigInt(b[i + k]);
  return v;
}
function r32(b, i) {
  return BigInt((b[i] | (b[i + 1] << 8) | (b[i + 2] << 16)) + b[i + 3] * 16777216);
}
const mul = (a, b) => (a * b) & M64;
const rotl = (v, r) => ((v << BigInt(r)) | (v >> BigInt(64 - r))) & M64;
function swap64(v) {
  let r = 0n;
  for (let i = 0; i < 8; i++) { r = (r << 8n) | (v & 0xffn); v >>= 8n; }
  return r;
}
function fold(a, b) {
  const p = a * b;
  return (p & M64) ^ (p >> 64n);
}
function avalanche(h) {
  h ^= h >> 37n;
  h = mul(h, 0x165667919E3779F9n);
  return h ^ (h >> 32n);
}
function avalanche64(h) {
  h ^= h >> 33n; h = mul(h, P64_2);
  h ^= h >> 29n; h = mul(h, P64_3);
  return h ^ (h >> 32n);
}
function rrmxmx(h, len) {
  h ^= rotl(h, 49) ^ rotl(h, 24);
  h = mul(h, 0x9FB21C651E98DF25n);
  h ^= (h >> 35n) + BigInt(len);
  h = mul(h, 0x9FB21C651E98DF25n);
  return h ^ (h >> 28n);
}
const S = XXH3_SECRET;
const mix16 = (b, i, s) => fold(r64(b, i) ^ r64(S, s), r64(b, i + 8) ^ r64(S, s + 8));

export function xxh3(b) {
  const len = b.length;
  if (len === 0) return avalanche64(r64(S, 56) ^ r64(S, 64));
  if (len <= 3) {
    const c = (b[0] << 16) | (b[len >> 1] << 24) | b[len - 1] | (len << 8);
    return avalanche64(BigInt(c >>> 0) ^ (r32(S, 0) ^ r32(S, 4)));
  }
  if (len <= 8) {
    const x = (r32(b, len - 4) + (r32(b, 0) << 32n)) ^ (r64(S, 8) ^ r64(S, 16));
    return rrmxmx(x, len);
  }
  if (len <= 16) {
    const lo = r64(b, 0) ^ (r64(S, 24) ^ r64(S, 32));
    const hi = r64(b, len - 8) ^ (r64(S, 40) ^ r64(S, 48));
    return avalanche((BigInt(len) + swap64(lo) + hi + fold(lo, hi)) & M64);
  }
  if (len <= 128) {
    let acc = mul(BigInt(len), P64_1);
    if (len > 32) {
      if (len > 64) {
        if (len > 96) acc += mix16(b, 48, 96) + mix16(b, len - 64, 112);
        acc += mix16(b, 32, 64) + mix16(b, len - 48, 80);
      }
      acc += mix16(b, 16, 32) + mix16(b, len - 32, 48);
    }
    acc += mix16(b, 0, 0) + mix16(b, len - 16, 16);
    return avalanche(acc & M64);
  }
  if (len <= 240) {
    let acc = mul(BigInt(len), P64_1);
    const rounds = len >> 4;
    for (let i = 0; i < 8; i++) acc += mix16(b, 16 * i, 16 * i);
    acc = avalanche(acc & M64);
    for (let i = 8; i < rounds; i++) acc += mix16(b, 16 * i, 16 * (i - 8) + 3);
    acc += mix16(b, len - 16, 136 - 17);
    return avalanche(acc & M64);
  }
  const acc = [P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1];
  const stripe = (at, s) => {
    for (let i = 0; i < 8; i++) {
      const v = r64(b, at + 8 * i), k = v ^ r64(S, s + 8 * i);
      acc[i ^ 1] = (acc[i ^ 1] + v) & M64;
      acc[i] = (acc[i] + (k & 0xFFFFFFFFn) * (k >> 32n)) & M64;
    }
  };
  const perBlock = (192 - 64) / 8, blockLen = 64 * perBlock;
  const blocks = Math.floor((len - 1) / blockLen);
  for (let n = 0; n < blocks; n++) {
    for (let s = 0; s < perBlock; s++) stripe(n * blockLen + 64 * s, 8 * s);
    for (let i = 0; i < 8; i++) {
      let a = acc[i];
      a ^= a >> 47n;
      a ^= r64(S, 192 - 64 + 8 * i);
      acc[i] = mul(a, P32_1);
    }
  }
  const stripes = Math.floor(((len - 1) - blockLen * blocks) / 64);
  for (let s = 0; s < stripes; s++) stripe(blocks * blockLen + 64 * s, 8 * s);
  stripe(len - 64, 192 - 64 - 7);
  let r = mul(BigInt(len), P64_1);
  for (let i = 0; i < 4; i++)
    r += fold(acc[2 * i] ^ r64(S, 11 + 16 * i), acc[2 * i + 1] ^ r64(S, 11 + 16 * i + 8));
  return avalanche(r & M64);
}
