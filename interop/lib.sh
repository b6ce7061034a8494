# Shared by the interop suites (sourced, not run): on this machine beside vm/lib.sh, and in the VMs
# (interop/ibverbs-pair stages it as /xchg/roce4j/lib.sh for serve, connect and await).

# perftest's result rows (print_report_lat / print_report_bw): the message size, the iterations,
# then a number. The C tool's numbers may be inf or -nan: its cycle-to-microsecond factor comes
# from its own CPU MHz estimate, which now and then fails in a TCG VM; that is the C tool's timing,
# not the test's outcome.
row='^ *[0-9]+ +[0-9]+ +[0-9]+\.[0-9]+'
c_row='^ *[0-9]+ +[0-9]+ +([0-9]+\.[0-9]+|inf|-?nan)'

# Does the server of TOOL (write-lat, read-bw, ...) print a result row? read_lat's and atomic_lat's
# server only serves the client's requests and prints none (C against C shows the same); every
# other side prints one.
server_measures() { case $1 in read-lat|atomic-lat) return 1 ;; *) return 0 ;; esac; }

# Steps: a run of cases in one boot, each case a server on one side (VM A, VM B or this machine)
# and its client on another. Every side runs its part of the list in order, from a script that
# sources the staged copy of this file and sets steps_dir (a folder the host can read, e.g.
# /xchg/steps); case N uses port 18515+N, so a client can only ever reach its own case's server
# (udaddy, whose port is fixed, excepted), and a client that finds nobody listening yet tries
# again. A step's command says where the port and the server's address go: @PORT@ and @HOST@ are
# replaced by them (perftest's "-p @PORT@ @HOST@", rping's "-a @HOST@ -p @PORT@"). Each step leaves
# N.out (the tool's output), N.begin (it started) and a line "N ROLE EXIT SECONDS" in steps_dir/done.
# POSIX sh: the VMs run their scripts with /bin/sh.
step_timeout=180

# What a client prints when nobody listens yet: the pingpongs and perftest over TCP ("Couldn't
# connect to HOST:PORT"); over rdma_cm a REJECTED (invalid service ID: rping, roce4j's perftest -R)
# or an UNREACHABLE (udaddy's SIDR); perftest 6.06's -R client says only "Unexpected CM event ... 8"
# and then "Unable to perform rdma_client function".
nobody_listens="Couldn't connect to [0-9]\|RDMA_CM_EVENT_REJECTED\|RDMA_CM_EVENT_UNREACHABLE\|Unable to perform rdma_client function"

# run_step N HOST CMD...: CMD with @PORT@ and @HOST@ replaced, at most step_timeout seconds.
run_step() {
  _port=$((18515 + $1)) _server=$2; shift 2
  for _word do
    shift
    case $_word in
      @PORT@) _word=$_port ;;
      @HOST@) _word=$_server ;;
    esac
    set -- "$@" "$_word"
  done
  timeout "$step_timeout" "$@"
}

# serve N CMD...: the server of case N.
serve() {
  _n=$1; shift
  : > "$steps_dir/$_n.begin"; _t0=$(date +%s)
  run_step "$_n" "" "$@" > "$steps_dir/$_n.out" 2>&1
  step_done "$_n" server $? "$_t0"
}

# connect N HOST CMD...: the client of case N, again while nobody listens at HOST yet, for at most
# step_timeout seconds.
connect() {
  _n=$1 _host=$2; shift 2
  : > "$steps_dir/$_n.begin"; _t0=$(date +%s)
  while :; do
    run_step "$_n" "$_host" "$@" > "$steps_dir/$_n.out" 2>&1; _rc=$?
    [ "$_rc" = 0 ] && break
    grep -q "$nobody_listens" "$steps_dir/$_n.out" || break
    [ $(($(date +%s) - _t0)) -lt "$step_timeout" ] || break
    sleep 1
  done
  step_done "$_n" client "$_rc" "$_t0"
}

step_done() { # N ROLE EXIT T0
  echo "$1 $2 $3 $(($(date +%s) - $4))" >> "$steps_dir/done"
  echo "== case $1, $2, exit $3"; cat "$steps_dir/$1.out"
  [ "$3" = 0 ] || steps_rc=1
}

# await N PEER_DIR: waits until the side whose steps_dir is PEER_DIR has begun case N (this
# machine's side, so that it starts nothing while the VMs run the cases before); fails when that
# side has finished its script without reaching case N.
await() {
  while [ ! -e "$2/$1.begin" ]; do
    [ -e "$2/../rc" ] && return 1
    sleep 0.5
  done
}

# step_record STEPS_DIR N: "EXIT SECONDS" of that side's step of case N, or nothing when it did not run.
step_record() { awk -v n="$2" '$1 == n { print $3, $4 }' "$1/done" 2>/dev/null; }

# steps_boot WORK N GUEST_STEPS HOST_STEPS [GUEST_SETUP [HOST_SETUP]] (this machine only, beside
# vm/lib.sh): one boot of VM A running the steps of N cases (step_timeout 120 s each) beside this
# machine's, each side's SETUP first; this file staged as /xchg/lib.sh, the steps in WORK/a/steps
# (peer, on this machine's side) and WORK/h/steps; returns vm_run's status.
steps_boot() {
  mkdir -p "$1/a" && cp "$root/interop/lib.sh" "$1/a/lib.sh" || return 1
  vm_script guest "$1/guest.sh" <<G
. /xchg/lib.sh
${5:-}
steps_dir=/xchg/steps; steps_rc=0; step_timeout=120
${3}exit \$steps_rc
G
  vm_script host "$1/host.sh" <<H
. "$root/interop/lib.sh"
${6:-}
steps_dir=$1/h/steps; peer=$1/a/steps; steps_rc=0; step_timeout=120
${4}exit \$steps_rc
H
  vm_run "$1" $((60 + 60 * $2)) interop_reset
}

# interop_reset WORK: what vm_run calls before each boot (vm/lib.sh): clears what the scripts of a
# boot before left (the roce4j side on this machine ran even when a VM's kernel panicked) and
# makes the sides' step folders.
interop_reset() {
  rm -rf "$1/j.out" "$1/a/c.out" "$1/a/listening" "$1/a/steps" "$1/b/steps" "$1/h/steps" "$1"/a/joined-*
  mkdir -p "$1/a/steps" "$1/h/steps"
  if [ -f "$1/b.sh" ]; then mkdir -p "$1/b/steps"; fi
}

# side_exits WORK: which side ended how, from rxe-vm's section headers in WORK/out.log
# ("VM a exit 0, host exit 255"): a failed case says whose exit status failed it.
side_exits() {
  sed -n 's/^== \(VM [ab]\|host\) (.*, exit \([^)]*\))$/\1 exit \2/p' "$1/out.log" 2>/dev/null | paste -sd ';' - | sed 's/;/, /g'
}

# failure_tail WORK: the end of each side's section of WORK/out.log (its header, then its last 15
# lines, each cut at 240 characters: rping's ping lines are as long as the message), indented, on
# stderr; a tail of the whole log would show only the side rxe-vm printed last.
failure_tail() {
  awk '/^== (VM [ab]|host) \(/ { show(); head = $0; n = 0; next }
       { last[n++ % 15] = substr($0, 1, 240) }
       function show(  i) { if (head == "") return; print head
                            for (i = (n > 15 ? n - 15 : 0); i < n; i++) print "  " last[i % 15] }
       END { show() }' "$1/out.log" 2>/dev/null | sed 's/^/      /' >&2
}
