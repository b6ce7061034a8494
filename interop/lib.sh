# Shared by the interop suites (sourced, not run).

# The VMs' bridge comes up just before they boot, so its IPv6 link-local address (roce4j's GID 0
# here) appears only when a VM's tap gives it a carrier, and then spends a second or so in
# duplicate address detection; until that is over nobody answers neighbour solicitations for it
# and rxe's modify to RTR fails. A real host is long past it. A host script starts with this line:
# it waits for the address (at most 60 s; the VMs start slowly on a loaded machine).
wait_for_dad='for i in $(seq 300); do ip -6 addr show dev br0 scope link -tentative | grep -q inet6 && break; sleep 0.2; done'

# The same in the VM: its init brings eth0 up just before the case's script runs, so the guest's
# own link-local address (rxe0's GID 0) is tentative for a second; a C tool started at once cannot
# resolve the peer over it (rxe: "Failed to modify QP to RTR"). A guest script starts with this line.
guest_wait_for_dad='for i in $(seq 300); do ip -6 addr show dev eth0 scope link -tentative | grep -q inet6 && break; sleep 0.2; done'

# run_vm WORK: boots VM A with WORK/guest.sh (and VM B with WORK/b.sh when there is one: rxe-vm
# pair), runs WORK/host.sh beside them when there is one, output in WORK/out.log; returns rxe-vm's
# status. A VM whose kernel did not boot (qemu TCG on a loaded machine now and then panics in
# setup_IO_APIC) ran nothing: they are booted once more, and $vm_note says so.
run_vm() {
  local work=$1 attempt rc=1
  vm_note=""
  for attempt in 1 2; do
    rm -rf "$work/j.out" "$work/a/c.out" "$work/a/listening" "$work"/a/steps "$work"/b/steps "$work"/h/steps
    mkdir -p "$work/a/steps" "$work/h/steps"; [ -f "$work/b.sh" ] && mkdir -p "$work/b/steps"
    if [ -f "$work/b.sh" ]; then set -- pair "$work/guest.sh" "$work/b.sh"; else set -- run "$work/guest.sh"; fi
    [ -f "$work/host.sh" ] && set -- "$@" "$work/host.sh"
    RXE_VM_XCHG=$work RXE_VM_TIMEOUT=${RXE_VM_TIMEOUT:-150} "$rxevm" "$@" > "$work/out.log" 2>&1
    rc=$?
    grep -q "Kernel panic" "$work/a/console.log" "$work/b/console.log" 2>/dev/null || break
    vm_note=", VM boot panicked on attempt $attempt"
  done
  return $rc
}

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

# In a VM every JVM (and, for a fair comparison, every C tool it is measured against) runs on vCPU 0
# alone: prefix its command with $vm_pin. HotSpot patches compiled code while other threads may be
# running it (an nmethod made not entrant gets a jump written over its entry), and qemu's
# multi-threaded TCG (7.2 here) can then execute on another vCPU an instruction made of old and new
# bytes: JVMs died of it (SIGSEGV at a C1 method's entry) in about 1 run in 30 unpinned, in the
# ibverbs device tests and in the peers alike. On one vCPU the patch and the fetch are ordered.
vm_pin="taskset -c 0"

# stage_roce4j DIR: puts what a VM needs to run roce4j into DIR/roce4j (DIR is a VM's /xchg): the
# tools jar and its dependencies (built first when stale, as ./roce4j does), this file, and a
# launcher DIR/roce4j/roce4j that runs them with ./roce4j's main class and JVM flags. The VM then
# needs nothing of the checkout, which may live in this machine's /tmp (CI clones there; each VM's
# /tmp is its own). The JDK 25 is used in place: it must not be under /tmp itself.
stage_roce4j() {
  local dir=$1/roce4j java_home jar="" candidate
  java_home=$("$root/.mvn/find-jdk25") || return 1
  case $java_home in /tmp/*) echo "interop: the JDK 25 ($java_home) is under /tmp, which the VMs cannot see" >&2; return 1 ;; esac
  "$root/roce4j" --help > /dev/null || return 1
  for candidate in "$root"/tools/target/roce4j-tools-*.jar; do
    case $candidate in *-sources.jar | *-javadoc.jar | *-tests.jar) ;; *) [ -f "$candidate" ] && jar=$candidate ;; esac
  done
  [ -n "$jar" ] || { echo "interop: no tools jar in $root/tools/target" >&2; return 1; }
  mkdir -p "$dir" && cp "$jar" "$root"/tools/target/lib/*.jar "$root/interop/lib.sh" "$dir/" || return 1
  cat > "$dir/roce4j" <<L
#!/bin/sh
# roce4j as staged by interop/lib.sh (stage_roce4j): the jars beside this launcher.
here=\$(cd "\$(dirname "\$0")" && pwd)
exec "$java_home/bin/java" --enable-native-access=ALL-UNNAMED -cp "\$here/*" org.roce4j.tools.Roce4j "\$@"
L
  chmod 755 "$dir/roce4j"
}

# Steps: a run of cases in one boot, each case a server on one side (VM A, VM B or this machine)
# and its client on another. Every side runs its part of the list in order, from a script that
# sources the staged copy of this file and sets steps_dir (a folder the host can read, e.g.
# /xchg/steps); case N uses TCP port 18515+N, so a client can only ever reach its own case's
# server, and a client that finds nobody listening yet tries again. Each step leaves N.out (the
# tool's output), N.begin (it started) and a line "N ROLE EXIT SECONDS" in steps_dir/done.
# POSIX sh: the VMs run their scripts with /bin/sh.
step_timeout=180

# serve N CMD...: the server of case N.
serve() {
  _n=$1; shift
  : > "$steps_dir/$_n.begin"; _t0=$(date +%s)
  timeout "$step_timeout" "$@" -p $((18515 + _n)) > "$steps_dir/$_n.out" 2>&1
  step_done "$_n" server $? "$_t0"
}

# connect N HOST CMD...: the client of case N, again while nobody listens at HOST yet (the C tools
# and roce4j say "Couldn't connect to HOST:PORT"), for at most step_timeout seconds.
connect() {
  _n=$1 _host=$2; shift 2
  : > "$steps_dir/$_n.begin"; _t0=$(date +%s)
  while :; do
    timeout "$step_timeout" "$@" -p $((18515 + _n)) "$_host" > "$steps_dir/$_n.out" 2>&1; _rc=$?
    [ "$_rc" = 0 ] && break
    grep -q "Couldn't connect to [0-9]" "$steps_dir/$_n.out" || break
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
