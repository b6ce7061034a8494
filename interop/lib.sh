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

# run_vm WORK: boots VM A with WORK/guest.sh, runs WORK/host.sh beside it, output in WORK/out.log;
# returns rxe-vm's status. A VM whose kernel did not boot (qemu TCG on a loaded machine now and then
# panics in setup_IO_APIC) ran nothing: it is booted once more, and $vm_note says so.
run_vm() {
  local work=$1 attempt rc=1
  vm_note=""
  for attempt in 1 2; do
    rm -f "$work/j.out" "$work/a/c.out" "$work/a/listening"
    RXE_VM_XCHG=$work RXE_VM_TIMEOUT=${RXE_VM_TIMEOUT:-150} "$rxevm" run "$work/guest.sh" "$work/host.sh" > "$work/out.log" 2>&1
    rc=$?
    grep -q "Kernel panic" "$work/a/console.log" 2>/dev/null || break
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
