# vm/lib.sh: the one way roce4j's scripts run code on Linux Soft-RoCE in throwaway VMs
# (../shared/rxe-vm/rxe-vm). Sourced by bash scripts on this machine, never in a VM, after they set
# $root (the checkout). Used by interop/pingpong, interop/perftest, interop/ibverbs-pair,
# examples/run-in-vm and ibverbs/run-in-vm; vm/lib-test checks it without booting anything.
#
#   vm_check NAME                    root and rxe-vm are there, or NAME says why (status 1)
#   vm_stage DIR ENTRY...            stage: a class path (jars, classes folders) into DIR, in a VM's
#                                    shared folder, with the launcher DIR/java (JDK 25, the entries in order)
#   vm_stage_roce4j DIR              stage roce4j's command line as DIR/roce4j/roce4j
#   vm_script guest|host FILE        write FILE from stdin, after the line that waits for DAD there
#   vm_run WORK TIMEOUT [RESET]      boot and run (below), a second time when a kernel panicked
#   vm_collect FROM TO PATH...       collect what the VM left in FROM (globs allowed) into TO
#
# A run's folder WORK: guest.sh (VM A's script), b.sh (VM B's; rxe-vm pair when present), host.sh
# (this machine's, beside them, when present); a/ and b/ are the VMs' /xchg (rxe-vm: RXE_VM_XCHG),
# stage into them. rxe-vm's output goes to WORK/out.log, each side's to a/guest.log, b/guest.log,
# host.log. The VMs see this machine's whole filesystem read-only except /tmp, which is their own:
# whatever a VM runs must be staged, since a checkout may live in /tmp (CI clones there).

rxevm=${RXE_VM:-$root/../shared/rxe-vm/rxe-vm}

# In a VM every JVM (and, for a fair comparison, every C tool it is measured against) runs on vCPU 0
# alone: prefix its command with $vm_pin. HotSpot patches compiled code while other threads may be
# running it (an nmethod made not entrant gets a jump written over its entry), and qemu's
# multi-threaded TCG (7.2 here) can then execute on another vCPU an instruction made of old and new
# bytes: JVMs died of it (SIGSEGV at a C1 method's entry) in about 1 run in 30 unpinned, in the
# ibverbs device tests and in the peers alike. On one vCPU the patch and the fetch are ordered.
vm_pin="taskset -c 0"

# In a VM every staged JVM (vm_stage's launcher) compiles with C1 alone: under qemu TCG, pinned to
# one vCPU, the JIT's own work is a third of a short run's time (async-profiler, itimer, in a VM:
# 1,342 of 3,729 samples of a roce4j write-bw client in the compiler thread, with C1 alone), and C2
# costs more: roce4j write-bw --help 15.2 s with both compilers, 10.8 s with C1; write-bw -d rxe0
# -n 20 against ib_write_bw, 27.8 s and 22.4 s. vm_script's guest preamble exports it and the
# launcher passes it on; on this machine (host.sh) it is unset and the JVM keeps its defaults. A step
# that measures (interop/ibverbs-pair's bench) clears it for its JVMs: env VM_JVM_OPTIONS= CMD.
vm_jvm_options="-XX:TieredStopAtLevel=1"

vm_check() { # NAME
  if [ "$(id -u)" != 0 ]; then
    echo "$1: needs root (the VMs' network namespace, tap devices and bridge)" >&2; return 1
  fi
  [ -x "$rxevm" ] || { echo "$1: $rxevm not found" >&2; return 1; }
}

# The JDK 25 the VMs run in place (it is not staged): it must not live under /tmp.
vm_java_home() {
  local java_home
  java_home=$("$root/.mvn/find-jdk25") || return 1
  case $java_home in /tmp/*) echo "vm: the JDK 25 ($java_home) is under /tmp, which the VMs cannot see" >&2; return 1 ;; esac
  echo "$java_home"
}

# vm_jar_of MODULE: the module's own jar in MODULE/target (not its -sources, -javadoc or -tests jar).
vm_jar_of() {
  local candidate
  for candidate in "$root/$1"/target/roce4j-*.jar; do
    case $candidate in *-sources.jar | *-javadoc.jar | *-tests.jar) ;; *) [ -f "$candidate" ] && { echo "$candidate"; return 0; } ;; esac
  done
  echo "vm: no jar in $root/$1/target (build first: ./mvnw -B package -DskipTests)" >&2
  return 1
}

# vm_stage DIR ENTRY...: copies each class path entry into DIR/cp as NNN-NAME, numbered so that the
# order survives (a classes folder MODULE/target/classes becomes NNN-MODULE-classes), and writes
# DIR/java: `DIR/java [JVM OPTION...] MAIN [ARG...]` runs the JDK 25 with native access enabled
# and that class path, and with $VM_JVM_OPTIONS (set in a VM: vm_jvm_options). The launcher finds
# the copies beside itself, so it works wherever DIR is seen: in the VM (/xchg/...) and on this machine.
vm_stage() {
  local dir=$1 java_home entry copy n=0 classpath=""
  shift
  java_home=$(vm_java_home) || return 1
  rm -rf "$dir/cp" && mkdir -p "$dir/cp" || return 1
  for entry; do
    n=$((n + 1))
    case $entry in
      *.jar) copy=$(printf '%03d' $n)-$(basename "$entry") ;;
      *) copy=$(printf '%03d' $n)-$(basename "$(dirname "$(dirname "$entry")")")-$(basename "$entry") ;;
    esac
    cp -r "$entry" "$dir/cp/$copy" || return 1
    classpath+="${classpath:+:}\$here/cp/$copy"
  done
  cat > "$dir/java" <<L
#!/bin/sh
# Staged by vm/lib.sh (vm_stage): java [JVM OPTION...] MAIN [ARG...] with the class path beside it.
here=\$(cd "\$(dirname "\$0")" && pwd)
exec "$java_home/bin/java" \${VM_JVM_OPTIONS:-} --enable-native-access=ALL-UNNAMED -cp "$classpath" "\$@"
L
  chmod 755 "$dir/java"
}

# vm_stage_roce4j DIR: roce4j's command line as DIR/roce4j/roce4j (the tools jar and its
# dependencies, built first when stale, as ./roce4j does).
vm_stage_roce4j() {
  local jar
  "$root/roce4j" --help > /dev/null || return 1
  jar=$(vm_jar_of tools) || return 1
  vm_stage "$1/roce4j" "$jar" "$root"/tools/target/lib/*.jar || return 1
  cat > "$1/roce4j/roce4j" <<'L'
#!/bin/sh
# roce4j as staged by vm/lib.sh (vm_stage_roce4j).
exec "$(dirname "$0")/java" org.roce4j.tools.Roce4j "$@"
L
  chmod 755 "$1/roce4j/roce4j"
}

# The VMs' bridge comes up just before they boot, so its IPv6 link-local address (roce4j's GID 0
# on this machine's side) appears only when a VM's tap gives it a carrier, and then spends a second
# or so in duplicate address detection; until that is over nobody answers neighbour solicitations
# for it and rxe's modify to RTR fails. In a VM the same holds for eth0 (rxe0's GID 0): the VM's
# init brings it up just before the script runs, and a C tool started at once cannot resolve the
# peer over it (rxe: "Failed to modify QP to RTR"). Each script therefore starts by waiting for its
# side's address (at most 60 s; the VMs start slowly on a loaded machine). A guest's script then
# exports VM_JVM_OPTIONS (vm_jvm_options above).
#
# A guest then checks rxe0's GID table is the one rxe-vm promises (index 0 the link-local, index 1
# ::ffff:<IPv4>). The init adds rxe0 right after bringing eth0 up, and now and then (once in a CI run
# on 6.1) the link-local address lands twice, at 0 and 1, and the IPv4 GID at 2: every test that
# takes index 1 for the IPv4 GID then fails. rxe0 is then added again, now that the addresses are
# settled, which gives the promised table; the script says so on its output.
vm_script() { # guest|host FILE, the script's body on stdin
  local dev=eth0
  [ "$1" = host ] && dev=br0
  { echo "for i in \$(seq 300); do ip -6 addr show dev $dev scope link -tentative | grep -q inet6 && break; sleep 0.2; done"
    [ "$1" = host ] || echo "export VM_JVM_OPTIONS='$vm_jvm_options'"
    [ "$1" = host ] || cat <<'G'
gid1() { cat /sys/class/infiniband/rxe0/ports/1/gids/1 2>/dev/null; }
case $(gid1) in
  0000:0000:0000:0000:0000:ffff:*) ;;
  *) echo "vm: rxe0's GID 1 was $(gid1), not ::ffff:<IPv4>: rxe0 added again"
     rdma link delete rxe0; rdma link add rxe0 type rxe netdev eth0
     for i in $(seq 50); do case $(gid1) in 0000:0000:0000:0000:0000:ffff:*) break ;; esac; sleep 0.2; done ;;
esac
G
    cat; } > "$2"
}

# vm_run WORK TIMEOUT [RESET]: boots VM A with WORK/guest.sh (and VM B with WORK/b.sh when there is
# one: rxe-vm pair) and runs WORK/host.sh beside them when there is one, for at most TIMEOUT seconds
# ($RXE_VM_TIMEOUT overrides it); rxe-vm's output in WORK/out.log; returns rxe-vm's status. A VM
# that did not boot ran nothing: qemu TCG on a loaded machine now and then panics in setup_IO_APIC,
# or hangs before its init starts the script (no guest.log: rxe-vm prints "exit none"). Then the
# VMs are booted once more and $vm_note says so; a script that began and then hung is not retried.
# RESET, a function, is called with WORK before each boot to clear what the scripts of a boot
# before left (this machine's script did run) and to make the folders they expect.
vm_run() {
  local work=$1 timeout=$2 reset=${3:-} attempt rc=1
  local -a args
  vm_note=""
  for attempt in 1 2; do
    [ -z "$reset" ] || "$reset" "$work"
    mkdir -p "$work/a"
    if [ -f "$work/b.sh" ]; then args=(pair "$work/guest.sh" "$work/b.sh"); else args=(run "$work/guest.sh"); fi
    if [ -f "$work/host.sh" ]; then args+=("$work/host.sh"); fi
    RXE_VM_XCHG=$work RXE_VM_TIMEOUT=${RXE_VM_TIMEOUT:-$timeout} "$rxevm" "${args[@]}" > "$work/out.log" 2>&1 && rc=0 || rc=$?
    if grep -q "Kernel panic" "$work/a/console.log" "$work/b/console.log" 2>/dev/null; then
      vm_note=", VM boot panicked on attempt $attempt"
    elif [ ! -f "$work/a/guest.log" ] || { [ -f "$work/b.sh" ] && [ ! -f "$work/b/guest.log" ]; }; then
      vm_note=", a VM never ran its script on attempt $attempt"
    else
      break
    fi
  done
  return $rc
}

# vm_collect FROM TO PATH...: copies each PATH (relative to FROM, a glob or a name; what is not
# there is left out) to the same place under TO.
vm_collect() {
  local from=$1 to=$2 path found
  shift 2
  mkdir -p "$to" || return 1
  for path; do
    for found in "$from"/$path; do
      [ -e "$found" ] || continue
      mkdir -p "$(dirname "$to/${found#"$from"/}")" && cp -r "$found" "$to/${found#"$from"/}" || return 1
    done
  done
}
