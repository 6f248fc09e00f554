// Package plotting draws herd's figures with gonum/plot from plain series.
//
// A command fills a [Figure] with [Series] — mean-field curves as lines,
// simulation points with markers, either with error bars where a point has
// a standard error — and optional shaded [Band]s, then calls [Save] with a
// .png, .svg, .pdf or .eps path (the same figure gives the same bytes). Colours come
// from a fixed palette (Okabe and Ito's colour-blind-safe set) in the order
// of the series, so the same command always draws the same colours and the
// legend lists series in the order given. Point series get distinct glyph
// shapes. [SpansDecades] is the rule for choosing logarithmic axes.
//
// Nothing here panics on data: NaN and ±Inf points are skipped, values that
// are not positive are dropped on a log axis, and a figure with nothing to
// draw is an error. Files are written to a temporary file in the target
// directory and renamed, so a failed run never leaves a half-written plot.
//
// References:
//   - M. Okabe and K. Ito, "Color Universal Design (CUD): how to make
//     figures and presentations that are friendly to colorblind people",
//     J*FLY, 2002/2008 (the palette).
package plotting
