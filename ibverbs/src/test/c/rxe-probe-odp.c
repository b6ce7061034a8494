/* rxe behaviours behind on-demand paging (issue 16): IBV_ACCESS_ON_DEMAND registration, implicit ODP,
 * ibv_advise_mr and ibv_query_device_ex's odp_caps. Build: gcc rxe-probe-odp.c -libverbs; run in a VM
 * (../shared/rxe-vm) on each kernel, e.g. RXE_VM_KERNEL=6.12. Prints what it sees; the emulator's rxe
 * profiles (Quirk.NO_ON_DEMAND_PAGING) and the conformance OdpTest follow it.
 * Seen with rdma-core 44 on kernels 6.1 and 6.12 (rxe gained ODP in 6.14, advise_mr in 6.16):
 *  - ibv_query_device_ex: odp_caps general 0, rc/uc/ud/xrc 0 (device_cap_flags_ex 0x1223c76 on 6.1,
 *    0x1c001223c76 on 6.12: FLUSH_GLOBAL, FLUSH_PERSISTENT, ATOMIC_WRITE);
 *  - ibv_reg_mr with IBV_ACCESS_ON_DEMAND (with or without LOCAL_WRITE and remote rights), and implicit ODP
 *    (NULL, SIZE_MAX): NULL with errno 22 (EINVAL) on 6.1, 95 (EOPNOTSUPP) on 6.12; REMOTE_WRITE without
 *    LOCAL_WRITE is EINVAL on both (ib_check_mr_access checks it first);
 *  - ibv_advise_mr returns 95 (EOPNOTSUPP) for every call, errno untouched (0): PREFETCH of an ordinary MR,
 *    PREFETCH_WRITE with IBV_ADVISE_MR_FLAG_FLUSH, no SGE, advice 7. */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>

static void reg(struct ibv_pd *pd, const char *what, void *addr, size_t len, int access) {
  errno = 0;
  struct ibv_mr *mr = ibv_reg_mr(pd, addr, len, access);
  printf("reg_mr %s: %s errno %d\n", what, mr ? "ok" : "NULL", mr ? 0 : errno);
  if (mr) ibv_dereg_mr(mr);
}

int main(void) {
  struct ibv_device **list = ibv_get_device_list(NULL);
  if (!list || !list[0]) { printf("no device\n"); return 1; }
  struct ibv_context *ctx = ibv_open_device(list[0]);
  struct ibv_pd *pd = ibv_alloc_pd(ctx);
  struct ibv_device_attr_ex ax;
  memset(&ax, 0, sizeof ax);
  int rc = ibv_query_device_ex(ctx, NULL, &ax);
  printf("query_device_ex %d: device_cap_flags 0x%x device_cap_flags_ex 0x%llx\n", rc,
         ax.orig_attr.device_cap_flags, (unsigned long long)ax.device_cap_flags_ex);
  printf("odp_caps general 0x%llx rc 0x%x uc 0x%x ud 0x%x xrc 0x%x\n",
         (unsigned long long)ax.odp_caps.general_caps, ax.odp_caps.per_transport_caps.rc_odp_caps,
         ax.odp_caps.per_transport_caps.uc_odp_caps, ax.odp_caps.per_transport_caps.ud_odp_caps,
         ax.xrc_odp_caps);
  char *buf = aligned_alloc(4096, 8192);
  reg(pd, "LOCAL_WRITE|ON_DEMAND", buf, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
  reg(pd, "ON_DEMAND", buf, 8192, IBV_ACCESS_ON_DEMAND);
  reg(pd, "all remote|ON_DEMAND", buf, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE
      | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_ON_DEMAND);
  reg(pd, "REMOTE_WRITE|ON_DEMAND (no LOCAL_WRITE)", buf, 8192, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ON_DEMAND);
  reg(pd, "implicit (NULL, SIZE_MAX) LOCAL_WRITE|ON_DEMAND", NULL, SIZE_MAX,
      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
  struct ibv_mr *mr = ibv_reg_mr(pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE);
  struct ibv_sge sge = {(uintptr_t)buf, 4096, mr->lkey};
  errno = 0;
  rc = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1);
  printf("advise_mr PREFETCH ordinary MR: %d errno %d\n", rc, errno);
  errno = 0;
  rc = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
  printf("advise_mr PREFETCH_WRITE FLUSH: %d errno %d\n", rc, errno);
  errno = 0;
  rc = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 0);
  printf("advise_mr no SGE: %d errno %d\n", rc, errno);
  errno = 0;
  rc = ibv_advise_mr(pd, (enum ibv_advise_mr_advice)7, 0, &sge, 1);
  printf("advise_mr advice 7: %d errno %d\n", rc, errno);
  return 0;
}
