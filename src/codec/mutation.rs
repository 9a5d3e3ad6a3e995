//! The operands of atomic operations: FoundationDB takes each as bytes
//! that the operation reads its own way, so an operand is encoded as a
//! value is and then judged by what the operation makes of those bytes.
//!
//! - `add`, `min` and `max` read little-endian unsigned ints of the
//!   operand's length: an int with a little-endian width, or bytes;
//!   `min` and `max` compare without a sign, so a negative signed int is
//!   refused (it would compare as a huge one).
//! - `bit_and`, `bit_or` and `bit_xor` work byte by byte: an int with a
//!   width (either byte order), or bytes.
//! - `byte_min` and `byte_max` compare bytes from the first: what the tuple
//!   layer packs (which orders as the data does), raw bytes, and unsigned
//!   big-endian ints, but no little-endian or signed fixed-width int and no
//!   fixed-width num, whose bytes order otherwise.
//! - `append_if_fits` and `compare_and_clear` take any value, as a write of
//!   it would store it.
//!
//! The checker judges a literal operand before the script runs; an operand
//! that a reference supplies is judged when the statement runs.

use num_bigint::Sign;

use crate::kv::MutationType;
use crate::syntax::ast::{AtomicOp, Elem, ElemKind, Int, Options, Type};

use super::options::{self, Encoding, IntLayout, IntWidth, Subject};
use super::{Error, Op, encode_value, type_of};

/// FDB's mutation type for an operation.
pub fn mutation_type(op: AtomicOp) -> MutationType {
    match op {
        AtomicOp::Add => MutationType::Add,
        AtomicOp::BitAnd => MutationType::BitAnd,
        AtomicOp::BitOr => MutationType::BitOr,
        AtomicOp::BitXor => MutationType::BitXor,
        AtomicOp::Min => MutationType::Min,
        AtomicOp::Max => MutationType::Max,
        AtomicOp::ByteMin => MutationType::ByteMin,
        AtomicOp::ByteMax => MutationType::ByteMax,
        AtomicOp::AppendIfFits => MutationType::AppendIfFits,
        AtomicOp::CompareAndClear => MutationType::CompareAndClear,
    }
}

/// The bytes `op` is given for `elem` with its options, or why the
/// operation cannot take it.
pub fn encode_operand(op: AtomicOp, elem: &Elem, opts: &Options) -> Result<Vec<u8>, Error> {
    let Some(ty) = type_of(&elem.kind) else {
        return Err(Error::NotData {
            hole: elem.kind.to_string(),
            at: elem.span,
        });
    };
    let encoding =
        options::resolve(opts, Subject::Value(ty)).map_err(|mut errors| errors.swap_remove(0))?;
    judge(op, &elem.kind, ty, encoding).map_err(|(found, help)| Error::BadOperand {
        op,
        found,
        at: elem.span,
        help,
    })?;
    let encoded = encode_value(elem, opts)?;
    if encoded.op != Op::Set {
        return Err(Error::BadOperand {
            op,
            found: "an incomplete vstamp".into(),
            at: elem.span,
            help: "the database fills in a stamp only in a plain write; an atomic operation takes a complete one".into(),
        });
    }
    Ok(encoded.bytes)
}

/// How an operation reads its operand's bytes.
#[derive(Clone, Copy, PartialEq)]
enum Reads {
    /// As a little-endian unsigned int: `add`, `min`, `max`.
    LittleEndian,
    /// Byte by byte: the bitwise operations.
    Bits,
    /// Compared from the first byte: `byte_min`, `byte_max`.
    Ordered,
    /// As they are: `append_if_fits`, `compare_and_clear`.
    Anything,
}

fn reads(op: AtomicOp) -> Reads {
    match op {
        AtomicOp::Add | AtomicOp::Min | AtomicOp::Max => Reads::LittleEndian,
        AtomicOp::BitAnd | AtomicOp::BitOr | AtomicOp::BitXor => Reads::Bits,
        AtomicOp::ByteMin | AtomicOp::ByteMax => Reads::Ordered,
        AtomicOp::AppendIfFits | AtomicOp::CompareAndClear => Reads::Anything,
    }
}

/// Whether `op` can use the operand; if not, what it is and what to write.
fn judge(
    op: AtomicOp,
    kind: &ElemKind,
    ty: Type,
    encoding: Encoding,
) -> Result<(), (String, String)> {
    let reads = reads(op);
    match (reads, ty, encoding) {
        (Reads::Anything, ..) | (_, Type::Bytes, _) => Ok(()),
        (Reads::LittleEndian, Type::Int, Encoding::Int(layout)) if layout.big_endian => Err((
            "a big-endian int".into(),
            format!(
                "`{op}` reads values as little-endian ints: drop `be`, as in `{}`",
                op.example()
            ),
        )),
        (Reads::LittleEndian, Type::Int, Encoding::Int(layout))
            if op != AtomicOp::Add && !layout.unsigned && negative(kind) =>
        {
            Err((
                "a negative int".into(),
                format!(
                    "`{op}` compares values as unsigned ints, where a negative int is a huge one; keep the values non-negative, as in `{}`",
                    op.example()
                ),
            ))
        }
        (Reads::LittleEndian | Reads::Bits, Type::Int, Encoding::Int(_)) => Ok(()),
        (Reads::LittleEndian | Reads::Bits, Type::Int, Encoding::Tuple) => Err((
            "a tuple-encoded int".into(),
            format!(
                "`{op}` works on fixed-width ints, and the tuple layer packs ints otherwise: give the int a width, as in `{}`",
                op.example()
            ),
        )),
        (Reads::LittleEndian | Reads::Bits, ..) => Err((
            found(ty, encoding),
            format!(
                "`{op}` takes an int with a width, as in `{}`, or bytes",
                op.example()
            ),
        )),
        (Reads::Ordered, Type::Int, Encoding::Int(layout)) if !orders_as_bytes(layout) => Err((
            found(ty, encoding),
            format!(
                "`{op}` compares bytes from the first: write the int without a width (the tuple layer orders ints as ints), or unsigned big-endian, as in `{op}(7[u64,be])`"
            ),
        )),
        (Reads::Ordered, Type::Num, Encoding::Num(_)) => Err((
            found(ty, encoding),
            format!(
                "`{op}` compares bytes from the first: write the num without a width, as the tuple layer orders nums as nums"
            ),
        )),
        (Reads::Ordered, ..) => Ok(()),
    }
}

/// Whether a fixed-width int's bytes order as its values: unsigned, most
/// significant byte first.
fn orders_as_bytes(layout: IntLayout) -> bool {
    layout.unsigned && (layout.big_endian || layout.width == IntWidth::W8)
}

fn negative(kind: &ElemKind) -> bool {
    match kind {
        ElemKind::Int(Int::Small(n)) => *n < 0,
        ElemKind::Int(Int::Big(n)) => n.sign() == Sign::Minus,
        _ => false,
    }
}

/// How a message names an operand of type `ty` in `encoding`.
fn found(ty: Type, encoding: Encoding) -> String {
    match (ty, encoding) {
        (Type::Nil, _) => "nil".into(),
        (Type::Tuple, _) => "a tuple".into(),
        (_, Encoding::Tuple) => format!("a tuple-encoded {ty}"),
        (_, Encoding::Raw) => format!("a raw {ty}"),
        (_, Encoding::Num(_)) => "a fixed-width num".into(),
        (_, Encoding::Int(l)) => {
            let sign = if l.unsigned {
                "an unsigned"
            } else {
                "a signed"
            };
            let order = if l.big_endian {
                "big-endian"
            } else {
                "little-endian"
            };
            format!("{sign} {order} int")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The operand of the one statement of `src`, encoded for its operation.
    fn operand(src: &str) -> Result<Vec<u8>, String> {
        let script = crate::syntax::parse(src).unwrap();
        let crate::syntax::ast::Item::Statement(stmt) = &script.items[0] else {
            unreachable!()
        };
        let crate::syntax::ast::Query::KeyValue(kv) = &stmt.query else {
            unreachable!()
        };
        let crate::syntax::ast::Value::Mutate(m) = &kv.value else {
            unreachable!()
        };
        encode_operand(m.op, &m.operand, &m.options).map_err(|e| e.to_string())
    }

    #[test]
    fn operands_are_the_bytes_a_write_would_store() {
        assert_eq!(
            operand("/a(1)=add(1[i64])"),
            Ok(1i64.to_le_bytes().to_vec())
        );
        assert_eq!(operand("/a(1)=add(-1[i16])"), Ok(vec![0xff, 0xff]));
        assert_eq!(operand("/a(1)=max(7[u32])"), Ok(vec![7, 0, 0, 0]));
        assert_eq!(operand("/a(1)=bit_or(0x0180)"), Ok(vec![1, 0x80]));
        assert_eq!(operand("/a(1)=bit_xor(1[i16,be])"), Ok(vec![0, 1]));
        assert_eq!(operand("/a(1)=byte_max(5)"), Ok(vec![0x15, 5]));
        assert_eq!(operand("/a(1)=byte_min(7[u16,be])"), Ok(vec![0, 7]));
        assert_eq!(
            operand("/a(1)=append_if_fits(\"x\"[raw])"),
            Ok(b"x".to_vec())
        );
        assert_eq!(
            operand("/a(1)=compare_and_clear(\"x\")"),
            Ok(b"\x02x\x00".to_vec())
        );
    }

    #[test]
    fn operands_that_mean_nothing_to_the_operation_are_refused() {
        for (src, found) in [
            ("/a(1)=add(1)", "a tuple-encoded int"),
            ("/a(1)=add(\"1\")", "a tuple-encoded str"),
            ("/a(1)=add(1[i64,be])", "a big-endian int"),
            ("/a(1)=add(1.5[f64])", "a fixed-width num"),
            ("/a(1)=min(-1[i64])", "a negative int"),
            ("/a(1)=bit_and((1,2))", "a tuple"),
            ("/a(1)=bit_or(nil)", "nil"),
            ("/a(1)=byte_max(7[u64])", "an unsigned little-endian int"),
            ("/a(1)=byte_min(7[i64,be])", "a signed big-endian int"),
            ("/a(1)=byte_max(1.5[f64,be])", "a fixed-width num"),
        ] {
            let e = operand(src).unwrap_err();
            assert!(e.ends_with(&format!("cannot take {found}")), "{src}: {e}");
        }
        // `add` wraps: a negative signed int is how to subtract.
        assert!(operand("/a(1)=add(-5[i64])").is_ok());
        assert!(operand("/a(1)=byte_max(7[u8])").is_ok());
        assert!(operand("/a(1)=byte_max(\"a\"[raw])").is_ok());
    }
}
