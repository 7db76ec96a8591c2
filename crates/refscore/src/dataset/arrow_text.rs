//! The text of a Parquet cell with no JSON form of its own: dates, times,
//! timestamps, durations, intervals, decimals, half floats and binary
//! values, written as Arrow displays them (`2024-03-05`,
//! `2024-03-05T12:00:00.250`, `2024-03-05T12:00:00Z`, `123.45`, hex bytes).
//!
//! Written here rather than taken from `arrow-cast`'s display module: that
//! crate and the kernels it needs (`arrow-ord`, the `lexical` parsers)
//! were about 70 s of a release build's CPU for these few formats. The
//! unit tests hold every format to `arrow-cast`'s.

use std::fmt::Write;

use arrow_array::cast::AsArray;
use arrow_array::temporal_conversions::{
    as_datetime, date32_to_datetime, date64_to_datetime, duration_ns_to_duration,
    duration_us_to_duration, time32ms_to_time, time32s_to_time, time64ns_to_time, time64us_to_time,
    try_duration_ms_to_duration, try_duration_s_to_duration,
};
use arrow_array::timezone::Tz;
use arrow_array::types::{
    ArrowTimestampType, Decimal32Type, Decimal64Type, Decimal128Type, Decimal256Type, DecimalType,
    DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType, DurationSecondType,
    Float16Type, IntervalDayTimeType, IntervalMonthDayNanoType, IntervalYearMonthType,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{Array, BinaryArray, BinaryViewArray, FixedSizeBinaryArray, LargeBinaryArray};
use arrow_schema::{DataType, IntervalUnit, TimeUnit};
use chrono::{SecondsFormat, TimeZone, Utc};

/// The text of cell `i` of `array` (not null, in range), or `None` for a
/// type without one (a union, say) or a value out of the calendar's range.
pub(super) fn text(array: &dyn Array, i: usize) -> Option<String> {
    match array.data_type() {
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            Some(hex(binary(array, i)?))
        }
        DataType::FixedSizeBinary(_) => {
            Some(hex(array.as_any().downcast_ref::<FixedSizeBinaryArray>()?.value(i)))
        }
        DataType::Float16 => Some(array.as_primitive_opt::<Float16Type>()?.value(i).to_string()),
        DataType::Decimal32(p, s) => decimal::<Decimal32Type>(array, i, *p, *s),
        DataType::Decimal64(p, s) => decimal::<Decimal64Type>(array, i, *p, *s),
        DataType::Decimal128(p, s) => decimal::<Decimal128Type>(array, i, *p, *s),
        DataType::Decimal256(p, s) => decimal::<Decimal256Type>(array, i, *p, *s),
        DataType::Date32 => {
            let v = array.as_primitive_opt::<arrow_array::types::Date32Type>()?.value(i);
            Some(format!("{:?}", date32_to_datetime(v)?.date()))
        }
        DataType::Date64 => {
            let v = array.as_primitive_opt::<arrow_array::types::Date64Type>()?.value(i);
            Some(format!("{:?}", date64_to_datetime(v)?))
        }
        DataType::Time32(unit) => time32(array, i, *unit),
        DataType::Time64(unit) => time64(array, i, *unit),
        DataType::Timestamp(unit, zone) => {
            let zone = zone.as_deref();
            match unit {
                TimeUnit::Second => timestamp::<TimestampSecondType>(array, i, zone),
                TimeUnit::Millisecond => timestamp::<TimestampMillisecondType>(array, i, zone),
                TimeUnit::Microsecond => timestamp::<TimestampMicrosecondType>(array, i, zone),
                TimeUnit::Nanosecond => timestamp::<TimestampNanosecondType>(array, i, zone),
            }
        }
        DataType::Duration(unit) => duration(array, i, *unit),
        DataType::Interval(unit) => interval(array, i, *unit),
        _ => None,
    }
}

/// The bytes of binary cell `i` (`Binary`, `LargeBinary`, `BinaryView`).
pub(super) fn binary(array: &dyn Array, i: usize) -> Option<&[u8]> {
    match array.data_type() {
        DataType::Binary => Some(array.as_any().downcast_ref::<BinaryArray>()?.value(i)),
        DataType::LargeBinary => Some(array.as_any().downcast_ref::<LargeBinaryArray>()?.value(i)),
        DataType::BinaryView => Some(array.as_any().downcast_ref::<BinaryViewArray>()?.value(i)),
        _ => None,
    }
}

/// Bytes as lower-case hex, two digits each.
pub(super) fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

fn decimal<T: DecimalType>(
    array: &dyn Array,
    i: usize,
    precision: u8,
    scale: i8,
) -> Option<String> {
    Some(T::format_decimal(array.as_primitive_opt::<T>()?.value(i), precision, scale))
}

fn time32(array: &dyn Array, i: usize, unit: TimeUnit) -> Option<String> {
    use arrow_array::types::{Time32MillisecondType, Time32SecondType};
    let time = match unit {
        TimeUnit::Second => time32s_to_time(array.as_primitive_opt::<Time32SecondType>()?.value(i)),
        TimeUnit::Millisecond => {
            time32ms_to_time(array.as_primitive_opt::<Time32MillisecondType>()?.value(i))
        }
        _ => None,
    }?;
    Some(format!("{time:?}"))
}

fn time64(array: &dyn Array, i: usize, unit: TimeUnit) -> Option<String> {
    use arrow_array::types::{Time64MicrosecondType, Time64NanosecondType};
    let time = match unit {
        TimeUnit::Microsecond => {
            time64us_to_time(array.as_primitive_opt::<Time64MicrosecondType>()?.value(i))
        }
        TimeUnit::Nanosecond => {
            time64ns_to_time(array.as_primitive_opt::<Time64NanosecondType>()?.value(i))
        }
        _ => None,
    }?;
    Some(format!("{time:?}"))
}

/// A timestamp: without a zone as the wall time it holds
/// (`2024-03-05T12:00:00`); with one, in that zone with its offset
/// (RFC 3339, `Z` for UTC). The zone is an offset (`+05:30`) or a name of
/// UTC: Parquet marks UTC-adjusted timestamps `UTC`, a name Arrow's parser
/// knows only with time-zone data, which this build leaves out. Another
/// name gives no text.
fn timestamp<T: ArrowTimestampType>(
    array: &dyn Array,
    i: usize,
    zone: Option<&str>,
) -> Option<String> {
    let naive = as_datetime::<T>(array.as_primitive_opt::<T>()?.value(i))?;
    match zone {
        None => Some(format!("{naive:?}")),
        Some(zone) => {
            let zone = if names_utc(zone) { "+00:00" } else { zone };
            let tz: Tz = zone.parse().ok()?;
            let local = Utc.from_utc_datetime(&naive).with_timezone(&tz);
            Some(local.to_rfc3339_opts(SecondsFormat::AutoSi, true))
        }
    }
}

/// Whether a time zone's name is one of UTC's.
fn names_utc(zone: &str) -> bool {
    ["UTC", "Etc/UTC", "Z", "Zulu", "GMT", "Etc/GMT", "UCT", "Universal", "Etc/Universal"]
        .iter()
        .any(|name| zone.eq_ignore_ascii_case(name))
}

/// A duration in ISO 8601 (`PT90S`); `<invalid>` past the range a
/// duration of seconds or milliseconds can hold, as Arrow writes it.
fn duration(array: &dyn Array, i: usize, unit: TimeUnit) -> Option<String> {
    let d = match unit {
        TimeUnit::Second => {
            try_duration_s_to_duration(array.as_primitive_opt::<DurationSecondType>()?.value(i))
        }
        TimeUnit::Millisecond => try_duration_ms_to_duration(
            array.as_primitive_opt::<DurationMillisecondType>()?.value(i),
        ),
        TimeUnit::Microsecond => Some(duration_us_to_duration(
            array.as_primitive_opt::<DurationMicrosecondType>()?.value(i),
        )),
        TimeUnit::Nanosecond => Some(duration_ns_to_duration(
            array.as_primitive_opt::<DurationNanosecondType>()?.value(i),
        )),
    };
    Some(d.map_or_else(|| String::from("<invalid>"), |d| d.to_string()))
}

/// An interval in words: `1 years 2 mons`, `3 days 1 hours 2.500 secs`,
/// `0 secs`.
fn interval(array: &dyn Array, i: usize, unit: IntervalUnit) -> Option<String> {
    match unit {
        IntervalUnit::YearMonth => {
            let months = f64::from(array.as_primitive_opt::<IntervalYearMonthType>()?.value(i));
            let years = (months / 12.0).floor();
            Some(format!("{years} years {} mons", months - years * 12.0))
        }
        IntervalUnit::DayTime => {
            let v = array.as_primitive_opt::<IntervalDayTimeType>()?.value(i);
            let mut parts = Words::default();
            parts.count(i64::from(v.days), "days");
            parts.clock(i64::from(v.milliseconds), 1_000, 3);
            Some(parts.finish())
        }
        IntervalUnit::MonthDayNano => {
            let v = array.as_primitive_opt::<IntervalMonthDayNanoType>()?.value(i);
            let mut parts = Words::default();
            parts.count(i64::from(v.months), "mons");
            parts.count(i64::from(v.days), "days");
            parts.clock(v.nanoseconds, 1_000_000_000, 9);
            Some(parts.finish())
        }
    }
}

/// An interval's parts in words, space-separated, the zero ones left out.
#[derive(Default)]
struct Words(String);

impl Words {
    fn push(&mut self, part: std::fmt::Arguments<'_>) {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        let _ = self.0.write_fmt(part);
    }

    fn count(&mut self, n: i64, unit: &str) {
        if n != 0 {
            self.push(format_args!("{n} {unit}"));
        }
    }

    /// `ticks` of `1 / per_second` s as hours, minutes and seconds with
    /// `digits` decimals; a negative remainder signs the seconds.
    fn clock(&mut self, ticks: i64, per_second: i64, digits: usize) {
        let secs = ticks / per_second;
        let fraction = ticks % per_second;
        let (mins, hours) = (secs / 60, secs / 3600);
        self.count(hours, "hours");
        self.count(mins - hours * 60, "mins");
        let secs = secs - mins * 60;
        if secs != 0 || fraction != 0 {
            let sign = if secs < 0 || fraction < 0 { "-" } else { "" };
            let (s, f) = (secs.unsigned_abs(), fraction.unsigned_abs());
            self.push(format_args!("{sign}{s}.{f:0digits$} secs"));
        }
    }

    fn finish(self) -> String {
        if self.0.is_empty() { String::from("0 secs") } else { self.0 }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::types::{ArrowPrimitiveType, IntervalDayTime, IntervalMonthDayNano};
    use arrow_array::*;
    use arrow_cast::display::{ArrayFormatter, FormatOptions};

    use super::*;

    type F16 = <Float16Type as ArrowPrimitiveType>::Native;
    type I256 = <Decimal256Type as ArrowPrimitiveType>::Native;

    /// Every cell of `array` as Arrow's own formatter writes it; a value
    /// it cannot write (it writes `ERROR: ...` as the text) has none.
    fn arrows(array: &dyn Array) -> Vec<Option<String>> {
        let f = ArrayFormatter::try_new(array, &FormatOptions::default());
        (0..array.len())
            .map(|i| f.as_ref().ok().map(|f| f.value(i).to_string()))
            .map(|t| t.filter(|t| !t.starts_with("ERROR:")))
            .collect()
    }

    fn ours(array: &dyn Array) -> Vec<Option<String>> {
        (0..array.len()).map(|i| text(array, i)).collect()
    }

    const SECONDS: [i64; 9] =
        [0, 1, -1, 59, 86_399, 1_709_640_000, -2_208_988_800, 253_402_300_799, 4_102_444_800];

    #[test]
    fn every_format_is_arrows() {
        let ticks: Vec<i64> = SECONDS
            .iter()
            .filter_map(|s| s.checked_mul(1_000_000_000))
            .flat_map(|ns| [ns, ns + 250_000_000, ns - 7])
            .collect();
        let arrays: Vec<ArrayRef> = vec![
            Arc::new(BinaryArray::from_vec(vec![b"", b"\x00\xffA", b"abc"])),
            Arc::new(LargeBinaryArray::from_vec(vec![b"\x10\x01"])),
            Arc::new(BinaryViewArray::from_iter_values([&b"a longer value than twelve bytes"[..]])),
            Arc::new(
                FixedSizeBinaryArray::try_from_iter([[1_u8, 2, 254, 255]].into_iter()).unwrap(),
            ),
            Arc::new(Float16Array::from_iter_values(
                [0.0, -0.0, 1.5, 65504.0, 0.1, f32::INFINITY, f32::NAN].map(F16::from_f32),
            )),
            Arc::new(
                Decimal128Array::from(vec![0, 12345, -12345, 5, i128::from(i64::MAX)])
                    .with_precision_and_scale(38, 2)
                    .unwrap(),
            ),
            Arc::new(
                Decimal128Array::from(vec![12345, -7]).with_precision_and_scale(10, 0).unwrap(),
            ),
            Arc::new(Decimal128Array::from(vec![12345]).with_precision_and_scale(10, -2).unwrap()),
            Arc::new(
                Decimal256Array::from(vec![I256::from_i128(-123_456_789), I256::MAX])
                    .with_precision_and_scale(76, 5)
                    .unwrap(),
            ),
            Arc::new(Decimal32Array::from(vec![1234, -5]).with_precision_and_scale(9, 3).unwrap()),
            Arc::new(Decimal64Array::from(vec![1234, -5]).with_precision_and_scale(18, 1).unwrap()),
            Arc::new(Date32Array::from(vec![0, 19_787, -719_162, 2_932_896, i32::MAX])),
            Arc::new(Date64Array::from(vec![0, 1_709_640_000_123, -1])),
            Arc::new(Time32SecondArray::from(vec![0, 43_200, 86_399])),
            Arc::new(Time32MillisecondArray::from(vec![0, 43_200_250, 86_399_999])),
            Arc::new(Time64MicrosecondArray::from(vec![0, 43_200_000_001])),
            Arc::new(Time64NanosecondArray::from(vec![0, 43_200_000_000_001, 86_399_999_999_999])),
            Arc::new(TimestampSecondArray::from(SECONDS.to_vec())),
            Arc::new(TimestampMillisecondArray::from(
                ticks.iter().map(|t| t / 1_000_000).collect::<Vec<_>>(),
            )),
            Arc::new(TimestampMicrosecondArray::from(
                ticks.iter().map(|t| t / 1_000).collect::<Vec<_>>(),
            )),
            Arc::new(TimestampNanosecondArray::from(ticks.clone())),
            Arc::new(TimestampNanosecondArray::from(ticks.clone()).with_timezone("+00:00")),
            Arc::new(TimestampSecondArray::from(SECONDS.to_vec()).with_timezone("+05:30")),
            Arc::new(TimestampSecondArray::from(vec![1_709_640_000]).with_timezone("-08:00")),
            Arc::new(DurationSecondArray::from(vec![0, 90, -90, i64::MAX])),
            Arc::new(DurationMillisecondArray::from(vec![0, 1_500, -1, i64::MIN])),
            Arc::new(DurationMicrosecondArray::from(vec![0, 1_500_000, -3])),
            Arc::new(DurationNanosecondArray::from(vec![0, 1, -1_000_000_001])),
            Arc::new(IntervalYearMonthArray::from(vec![0, 14, -14, 11])),
            Arc::new(IntervalDayTimeArray::from(vec![
                IntervalDayTime::new(0, 0),
                IntervalDayTime::new(3, 3_723_500),
                IntervalDayTime::new(-1, -61_001),
                IntervalDayTime::new(0, 999),
            ])),
            Arc::new(IntervalMonthDayNanoArray::from(vec![
                IntervalMonthDayNano::new(0, 0, 0),
                IntervalMonthDayNano::new(14, 3, 3_723_000_000_001),
                IntervalMonthDayNano::new(-1, 0, -1),
                IntervalMonthDayNano::new(0, 0, 7_200_000_000_000),
            ])),
        ];
        for a in &arrays {
            assert_eq!(ours(a.as_ref()), arrows(a.as_ref()), "{}", a.data_type());
        }
    }

    #[test]
    fn utc_by_name_is_utc() {
        // Parquet's UTC-adjusted timestamps are marked `UTC`; Arrow's
        // formatter, without time-zone data, cannot read the name.
        for zone in ["UTC", "utc", "Etc/UTC", "Z", "GMT"] {
            let a = TimestampMillisecondArray::from(vec![1_709_640_000_250]).with_timezone(zone);
            assert_eq!(text(&a, 0).as_deref(), Some("2024-03-05T12:00:00.250Z"), "{zone}");
        }
    }

    #[test]
    fn a_zone_arrow_does_not_know_gives_no_text() {
        let a = TimestampSecondArray::from(vec![0]).with_timezone("Not/AZone");
        assert_eq!(text(&a, 0), None);
        assert!(ArrayFormatter::try_new(&a, &FormatOptions::default()).is_err());
    }

    #[test]
    fn types_with_a_json_form_have_no_text_here() {
        assert_eq!(text(&Int64Array::from(vec![1]), 0), None);
        assert_eq!(text(&StringArray::from(vec!["a"]), 0), None);
    }
}
