# Seed 003 Figure 2 in our terms: writes per 1 KiB row at main memory's input,
# rows sorted from the least written (x: the row's rank as a share of the rows).
# Data: rows/c4-*.csv (DRAM.kind=pcm WB.size=0), written by gpudissect whatif.
# Run from this directory: gnuplot fig2.gp
set datafile separator ","
set key top left
set xlabel "rows, least to most written (share of rows written)"
set ylabel "writes per row"
set logscale y
set grid
set terminal pngcairo size 900,450
set output "fig2.png"
set multiplot layout 1,2
set title "k-means-like (pcm\\_kmeans)"
stats "rows/c4-pcm_kmeans.csv" using 1 nooutput
n = STATS_records
plot "rows/c4-pcm_kmeans.csv" using ($1/n):2 every ::1 with steps lw 2 title "sim:pcm"
set title "LIBOR-like (pcm\\_libor)"
stats "rows/c4-pcm_libor.csv" using 1 nooutput
n = STATS_records
plot "rows/c4-pcm_libor.csv" using ($1/n):2 every ::1 with steps lw 2 title "sim:pcm"
unset multiplot
