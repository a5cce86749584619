# speedup.gp -- written by gpudissect whatif.
# Restyle at will and re-run in this directory:  gnuplot speedup.gp
# It reads speedup.dat and draws speedup.png and speedup.svg (or out_png /
# out_svg when those are defined first).
if (!exists("out_png")) out_png = 'speedup.png'
if (!exists("out_svg")) out_svg = 'speedup.svg'
set encoding utf8
set datafile separator '\t'
set datafile missing 'NaN'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set yrange [0:*]
set key outside bottom center horizontal maxrows 4
set xtics nomirror rotate by -20
set ylabel 'speedup over the first combination (cycles)'
set title 'what-if on sim:pcm: speedup per workload, GM = geometric mean'
set terminal pngcairo size 1100,600 noenhanced font 'sans,10'
set output out_png
plot for [i=2:9] 'speedup.dat' using i:xtic(1) title columnheader(i)
set terminal svg size 1100,600 dynamic noenhanced font 'sans,10' background rgb 'white'
set output out_svg
replot
unset output
