//! Hand-picked inputs at the edges of the language, each with the verdict
//! both the grammar and the parser must give.

use super::{GRAMMAR, Verdict, parser_errors};
use Verdict::{Accept as A, Reject as R};

const CASES: &[(&str, Verdict)] = &[
    // Scripts and lines.
    ("", A),
    ("\n\n", A),
    ("   \t", A),
    ("% a comment and no line break", A),
    ("  /a  \n\t/b\t% indented\n", A),
    ("/a%comment right after", A),
    ("/a\r\n\r\n% crlf\r\n/b(\r\n  1, % c\r\n  2,\r\n)=3\r\n", A),
    ("/a\r", R),
    ("\r", R),
    ("/a\r/b", R),
    ("\u{feff}/a", A),
    ("users(1)", R),
    ("/a /b", R),
    ("/a(1)\n/b(", R),
    ("<int>", R),
    // Meta statements.
    ("@commit\n@read\n@write", A),
    ("@commit % done", A),
    ("@commit /a", R),
    ("@", R),
    ("@commt", R),
    ("@Commit", R),
    ("@commit(", R),
    // Query options.
    ("[reverse] /a(...)", A),
    ("[reverse]/a(...)", A),
    ("[reverse] % a comment\n  /a(...)", A),
    ("[ reverse ,\tlimit:5 ]\r\n/a(...)", A),
    ("[reverse]", R),
    ("[reverse]\n\n/a(...)", R),
    ("[reverse]\n% c\n/a(...)", A),
    ("[reverse] % a\n  % b\n\t% c\r\n/a(...)", A),
    ("[reverse]\n% c\n\n/a(...)", R),
    ("[reverse]\n% c\n@commit", R),
    ("[reverse]\n@commit", R),
    ("[]/a", R),
    ("[reverse,]/a", R),
    ("[reverse", R),
    ("[limit: 5]/a", R),
    ("[limit :5]/a", R),
    ("[limit:5\n]/a", R),
    ("[backwards]/a", R),
    ("[1x]/a", R),
    // Directories.
    ("/...", A),
    ("/a/...(...)", A),
    ("/a/...=remove", A),
    ("/a-b.c_d/_x/a...", A),
    ("/\"\"/\"d!r\"/<>/<x:str>/:y/:z!str", A),
    ("/a/.../b", R),
    ("/a/....", R),
    ("/a/..", R),
    ("/", R),
    ("/a/", R),
    ("/a//b", R),
    ("/1abc", R),
    ("/-a", R),
    ("/\u{e9}", R),
    ("/a\u{e9}", R),
    ("/\"a\"b", R),
    ("/a[raw]", R),
    ("/a (1)", R),
    ("/a=clear", R),
    ("/a=removed", R),
    // Tuples.
    ("/a()", A),
    ("/a( )", A),
    ("/a(\n)", A),
    ("/a(1,2,)", A),
    ("/a(...)", A),
    ("/a(...,)", A),
    ("/a( 1 ,\t2 , ... )", A),
    ("/a(\n  1, % one\n  2 % two\n)", A),
    ("/a((((()))))", A),
    ("/a(%x)", R),
    ("/a(1 % c)", R),
    ("/a(1, % c", R),
    ("/a(1\n% c\n)", A),
    ("/a(1", R),
    ("/a(1,2", R),
    ("/a(1 2)", R),
    ("/a(,)", R),
    ("/a(1,,2)", R),
    ("/a(...,1)", R),
    ("/a(... 1)", R),
    ("/a(...,...)", R),
    ("/a(....)", R),
    ("/a(1\n/b)", R),
    ("/a(1[raw])", R),
    ("/a(:x[raw])", R),
    ("/a(<int>[i64])", R),
    // Values.
    ("/a(1)=clear", A),
    ("/a()=:x[raw]", A),
    ("/a()=(1,<>)", A),
    ("/a()=\"x\"[raw]", A),
    ("/a()=37534[i64, be]", A),
    ("/a(1)=remove", R),
    ("/a(1)=clearly", R),
    ("/a(1)=clear[raw]", R),
    ("/a(1)=", R),
    ("/a(1)=...", R),
    ("/a(1) = 2", R),
    ("/a(1)= 2", R),
    ("/a(1) =2", R),
    ("/a()=<int>[i64]", R),
    ("/a()=<>[raw]", R),
    ("/a()=1[raw][be]", R),
    ("/a()=1 [raw]", R),
    ("/a(1) junk", R),
    ("/a(1)x", R),
    ("/a()=+1", R),
    // Numbers.
    ("/a(0,-0,007,-12,123456789012345678901234567890)", A),
    ("/a(1.5,-0.25,1e5,1e-5,1.5e-3,00.5e05)", A),
    ("/a(inf,-inf,nan)", A),
    ("/a(0e999,0.000e-999)", A),
    ("/a(1.)", R),
    ("/a(.5)", R),
    ("/a(-.5)", R),
    ("/a(1E5)", R),
    ("/a(1e+5)", R),
    ("/a(1e)", R),
    ("/a(1e-)", R),
    ("/a(1.5.3)", R),
    ("/a(1_000)", R),
    ("/a(1+2)", R),
    ("/a(1-2)", R),
    ("/a(-)", R),
    ("/a(--1)", R),
    ("/a(-nan)", R),
    ("/a(+inf)", R),
    ("/a(Inf)", R),
    ("/a(infinity)", R),
    ("/a(1e999)", R),
    ("/a(-1.5e400)", R),
    ("/a(1e-400)", R),
    // Bytes, uuids and versionstamps.
    ("/a(0x,0x00,0xABcd)", A),
    ("/a(0xabc)", R),
    ("/a(0xgg)", R),
    ("/a(0X12)", R),
    ("/a(-0x12)", R),
    ("/a(0x12_)", R),
    (
        "/a(ca03676e-1c59-4dd4-a7ea-36c90714c2b7,CA03676E-1C59-4DD4-A7EA-36C90714C2B7)",
        A,
    ),
    ("/a(12345678-1234-1234-1234-123456789abc)", A),
    ("/a(ca03676e-1c59-4dd4-a7ea-36c90714c2b)", R),
    ("/a(ca03676e-1c59-4dd4-a7ea-36c90714c2b77)", R),
    ("/a(ca03676e-1c59-4dd4-a7ea)", R),
    ("/a(ca03676e-1c59-4dd4-a7ea-36c9-0714c2b7)", R),
    ("/a(ca03676g-1c59-4dd4-a7ea-36c90714c2b7)", R),
    ("/a(ca03676e-1c59-4dd4-a7ea-36c90714c2bz)", R),
    ("/a(ca03676e)", R),
    ("/a(#0123456789abcdefABCD:00ff,#:0000)", A),
    ("/a(#:ff0)", R),
    ("/a(#:ff000)", R),
    ("/a(#0123:0000)", R),
    ("/a(#ff00)", R),
    ("/a(#:00fg)", R),
    ("/a(#:00ff:)", R),
    ("/a(#:00:00)", R),
    ("/a(#)", R),
    ("/a(#:)", R),
    // Strings.
    (
        "/a(\"\",\"\u{e9} \u{2603} \u{1f600} \u{a0}\u{feff}\",\"tab\\x09here\",\"cr\\x0dhere\")",
        A,
    ),
    // Control characters only as escapes; `\x` escapes spell UTF-8.
    ("/a(\"tab\there\")", R),
    ("/a(\"cr\rhere\")", R),
    ("/a(\"esc\u{1b}[31m\")", R),
    ("/a(\"del\u{7f}\")", R),
    ("/a(\"csi\u{9b}\")", R),
    ("/a(\"nel\u{85}\")", R),
    ("/\"a\u{1b}\"/b", R),
    ("/a()=1[sep:\"\u{7}\"]", R),
    ("/a(\"\\x1b\\x7f\\xc2\\x9b\\x00\\xC3\\xA9\")", A),
    ("/a(\"\\xf0\\x9f\\x98\\x80\\xe2\\x98\\x83\")", A),
    ("/a(\"\\xff\")", R),
    ("/a(\"\\xc3\")", R),
    ("/a(\"\\xc3x\")", R),
    ("/a(\"\\xa9\")", R),
    ("/a(\"\u{e9}\\xa9\")", R),
    ("/a(\"\\xed\\xa0\\x80\")", R),
    ("/a(\"\\x4\")", R),
    ("/a(\"\\x4g\")", R),
    ("/a(\"\\X41\")", R),
    ("/a(\"\\x\")", R),
    ("/a(1) % tab\there", A),
    ("/a(1) % \u{85} nel", R),
    ("/a(1) % esc\u{1b}", R),
    ("/a(1) % cr\rhere\n/b", R),
    ("/a(1) % cr at the end\r", R),
    ("/a(\n  1, % del\u{7f}\n)", R),
    ("/a(1,\u{1b})", R),
    // A byte-order mark only at the very start.
    ("\u{feff}", A),
    ("\u{feff}% c\n/a(1)", A),
    ("\u{feff}\u{feff}/a", R),
    (" \u{feff}/a", R),
    ("/a\n\u{feff}/b", R),
    ("/a(\u{feff})", R),
    ("/a(\"\\\" \\\\ \\n\")", A),
    ("/a(\"x)", R),
    ("/a(\"x\n\")", R),
    ("/a(\"\\t\")", R),
    ("/a(\"\\\u{e9}\")", R),
    ("/a(\"x\\", R),
    ("/a(\"x\\\n\")", R),
    ("/a('x')", R),
    ("/a(x)", R),
    // Words.
    ("/a(nil,true,false)", A),
    ("/a(nilx)", R),
    ("/a(true-)", R),
    ("/a(True)", R),
    ("/a(nil.x)", R),
    // Variables and references.
    (
        "/a(<>,<int>,<x:int>,<int|str>,<x.y-z:tup|tuple>,<_:any>)",
        A,
    ),
    ("/a()=<int[ i64 , be ]>", A),
    ("/a()=<x:append[sep:\", \"]>", A),
    ("/a(:x,:x!int,:_y.z)", A),
    ("/a(<x:>)", R),
    ("/a(<:int>)", R),
    ("/a(<1x:int>)", R),
    ("/a(<x:y:int>)", R),
    ("/a(<|int>)", R),
    ("/a(<int||str>)", R),
    ("/a(<x:|int>)", R),
    ("/a(<int)", R),
    ("/a(<int\n>)", R),
    ("/a(<int >)", R),
    ("/a(<int [i64]>)", R),
    ("/a(<int[i64][be]>)", R),
    ("/a(<[i64]>)", R),
    ("/a(<string>)", R),
    ("/a(<Int>)", R),
    ("/a(<intx>)", R),
    ("/a(:)", R),
    ("/a(:1x)", R),
    ("/a(:x!)", R),
    ("/a(:x!string)", R),
    ("/a(:x !int)", R),
    // Options.
    (
        "/a()=1[limit:-5,mode:want_all,sep:\"\\n\",width:99999999999999999999]",
        A,
    ),
    ("/a()=1[little]", R),
    ("/a()=1[limit:1.5]", R),
    ("/a()=1[limit:5x]", R),
    ("/a()=1[limit:0x10]", R),
    ("/a()=1[mode:-x]", R),
    ("/a()=1[mode:-inf]", R),
    ("/a()=1[mode:x y]", R),
    ("/a()=1[mode:]", R),
    ("/a()=1[sep:\"\\q\"]", R),
    ("/a()=1[raw % c\n]", R),
    // A trailing `|` leaves a type out.
    ("/a(<int|>)", R),
    ("/a(<x:int[i64]|>)", R),
    ("/a/<str|>", R),
    // A CR only ends a line before an LF.
    ("/a(1,\r2)", R),
    ("/a(\r)", R),
    // A user version is four hex digits; a second `:` is not one.
    ("/a(#:0:00)", R),
    ("/a(#:00:0)", R),
    ("/a()=#0123456789abcdef0123::fff", R),
];

#[test]
fn cases_are_judged_alike() {
    assert!(CASES.len() >= 60);
    let mut wrong = Vec::new();
    for &(text, expected) in CASES {
        let grammar = Verdict::of_grammar(&GRAMMAR, text);
        let parser = Verdict::of_parser(text);
        if (grammar, parser) != (expected, expected) {
            wrong.push(format!(
                "{text:?}: expected {expected:?}; grammar {grammar:?}, parser {parser:?}: {}",
                parser_errors(text)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Ints at the tuple layer's limit of 255 bytes of magnitude, which are
/// too long to write out above.
#[test]
fn ints_at_the_limit_are_judged_alike() {
    use num_bigint::BigInt;
    let max: BigInt = (BigInt::from(1) << 2040u32) - 1;
    let over: BigInt = &max + 1;
    let cases = [
        (format!("/a({max})"), A),
        (format!("/a(-{max})"), A),
        (format!("/a({}{max})", "0".repeat(700)), A),
        (format!("/a({over})"), R),
        (format!("/a(-{over})"), R),
        (format!("/a(1{})", "0".repeat(615)), R),
        (format!("/a()=1[limit:{over}]"), R),
        (format!("/a({}.5)", "9".repeat(300)), A),
    ];
    let mut wrong = Vec::new();
    for (text, expected) in &cases {
        let grammar = Verdict::of_grammar(&GRAMMAR, text);
        let parser = Verdict::of_parser(text);
        if (grammar, parser) != (*expected, *expected) {
            wrong.push(format!(
                "{}...: expected {expected:?}; grammar {grammar:?}, parser {parser:?}",
                &text[..20]
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
