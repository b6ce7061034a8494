/* rxe behaviours behind the verbs of issue 15 (granted queue depths, ibv_resize_cq, SRQ resize,
 * ibv_rereg_mr, device_cap_flags, num_comp_vectors). Build: gcc rxe-probe-capacities.c -libverbs;
 * run in a VM (../shared/rxe-vm) on each kernel, e.g. RXE_VM_KERNEL=6.12.
 * Seen with rdma-core 44 on kernels 6.1 and 6.12 (the emulator's rxe profiles follow it, see Quirk):
 *  - every queue and CQ holds roundup_pow_of_two(n + 1) - 1 (1->1, 3->3, 4->7, 8->15, 100->127), which
 *    ibv_query_qp, ibv_query_srq and cq->cqe report; ibv_create_qp and ibv_create_srq write back the depth
 *    asked on 6.1 (4) and the one granted on 6.12 (7); 1 send SGE and no inline asked: 16 bytes of inline;
 *  - ibv_resize_cq: 0, -1, max_cqe + 1 and fewer than the completions held are EINVAL (22); 10 -> 15;
 *    the completions held survive; ibv_modify_srq IBV_SRQ_MAX_WR works (20 -> 31, WQEs kept), 0, above
 *    max_srq_wr, below the WQEs posted are EINVAL, and a limit above the current max_wr is EINVAL;
 *  - ibv_rereg_mr: -4 (IBV_REREG_MR_ERR_CMD) with errno 95 (EOPNOTSUPP) for every flag, 0 included;
 *    flags 1 << 3 are -1 (ERR_INPUT) with errno 22: rdma-core 44's rxe provider has no rereg_mr;
 *  - device_cap_flags 0x1223c76; num_comp_vectors 2 (the VM's CPUs); comp_vector 2 and -1 are EINVAL;
 *  - max_qp_wr and max_srq_wr 1048576 (DEFAULT_MAX_VALUE); an MR without remote rights has rkey 0 on 6.1,
 *    rkey = lkey on 6.12. */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static char *buf;

static int post_recv(struct ibv_qp *qp, int id) {
  struct ibv_sge s = {(uintptr_t)buf, 64, mr->lkey};
  struct ibv_recv_wr w = {0}, *bad;
  w.wr_id = id; w.sg_list = &s; w.num_sge = 1;
  return ibv_post_recv(qp, &w, &bad);
}

static int post_srq(struct ibv_srq *srq, int id) {
  struct ibv_sge s = {(uintptr_t)buf, 64, mr->lkey};
  struct ibv_recv_wr w = {0}, *bad;
  w.wr_id = id; w.sg_list = &s; w.num_sge = 1;
  return ibv_post_srq_recv(srq, &w, &bad);
}

static int post_send(struct ibv_qp *qp, int id) {
  struct ibv_sge s = {(uintptr_t)buf, 8, mr->lkey};
  struct ibv_send_wr w = {0}, *bad;
  w.wr_id = id; w.sg_list = &s; w.num_sge = 1; w.opcode = IBV_WR_SEND; w.send_flags = IBV_SEND_SIGNALED;
  return ibv_post_send(qp, &w, &bad);
}

/* An RC QP connected to itself, with no receive: its first SEND is RNR-NAKed forever. */
static void to_rts_self(struct ibv_qp *qp) {
  union ibv_gid gid; ibv_query_gid(ctx, 1, 1, &gid);
  struct ibv_qp_attr a = {0};
  a.qp_state = IBV_QPS_INIT; a.port_num = 1; a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
  int r = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS);
  memset(&a, 0, sizeof a);
  a.qp_state = IBV_QPS_RTR; a.path_mtu = IBV_MTU_1024; a.dest_qp_num = qp->qp_num; a.rq_psn = 0;
  a.max_dest_rd_atomic = 1; a.min_rnr_timer = 1;
  a.ah_attr.is_global = 1; a.ah_attr.grh.dgid = gid; a.ah_attr.grh.sgid_index = 1; a.ah_attr.grh.hop_limit = 64;
  a.ah_attr.port_num = 1;
  r |= ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN
                     | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
  memset(&a, 0, sizeof a);
  a.qp_state = IBV_QPS_RTS; a.timeout = 14; a.retry_cnt = 7; a.rnr_retry = 7; a.sq_psn = 0; a.max_rd_atomic = 1;
  r |= ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN
                     | IBV_QP_MAX_QP_RD_ATOMIC);
  if (r) printf("  to_rts_self failed\n");
}

static void qp_depths(struct ibv_cq *cq, int asked) {
  struct ibv_qp_init_attr ia = {0};
  ia.send_cq = cq; ia.recv_cq = cq; ia.qp_type = IBV_QPT_RC;
  ia.cap.max_send_wr = asked; ia.cap.max_recv_wr = asked; ia.cap.max_send_sge = 1; ia.cap.max_recv_sge = 1;
  struct ibv_qp *qp = ibv_create_qp(pd, &ia);
  if (!qp) { printf("qp asked %d: create errno %d\n", asked, errno); return; }
  struct ibv_qp_attr qa; struct ibv_qp_init_attr qi;
  ibv_query_qp(qp, &qa, IBV_QP_CAP, &qi);
  to_rts_self(qp);
  int recvs = 0, sends = 0, r = 0;
  while (recvs < 10000 && !(r = post_recv(qp, recvs))) recvs++;
  int rerr = r;
  /* the receives would take the SENDs: a second QP sends instead */
  struct ibv_qp *sq = ibv_create_qp(pd, &ia);
  to_rts_self(sq);
  while (sends < 10000 && !(r = post_send(sq, sends))) sends++;
  printf("qp asked %d: create cap send_wr=%u recv_wr=%u send_sge=%u recv_sge=%u inline=%u;"
         " query cap send_wr=%u recv_wr=%u inline=%u; recvs accepted %d (then %d), sends accepted %d (then %d)\n",
         asked, ia.cap.max_send_wr, ia.cap.max_recv_wr, ia.cap.max_send_sge, ia.cap.max_recv_sge, ia.cap.max_inline_data,
         qa.cap.max_send_wr, qa.cap.max_recv_wr, qa.cap.max_inline_data, recvs, rerr, sends, r);
  ibv_destroy_qp(sq);
  ibv_destroy_qp(qp);
}

/* n completions in cq: n receives flushed by moving a QP to ERR */
static struct ibv_qp *flush_into(struct ibv_cq *cq, int n) {
  struct ibv_qp_init_attr ia = {0};
  ia.send_cq = cq; ia.recv_cq = cq; ia.qp_type = IBV_QPT_RC;
  ia.cap.max_send_wr = 1; ia.cap.max_recv_wr = n; ia.cap.max_send_sge = 1; ia.cap.max_recv_sge = 1;
  struct ibv_qp *qp = ibv_create_qp(pd, &ia);
  struct ibv_qp_attr a = {0};
  a.qp_state = IBV_QPS_INIT; a.port_num = 1;
  ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS);
  for (int i = 0; i < n; i++) post_recv(qp, 100 + i);
  a.qp_state = IBV_QPS_ERR;
  ibv_modify_qp(qp, &a, IBV_QP_STATE);
  usleep(200000);
  return qp;
}

int main(void) {
  struct ibv_device **l = ibv_get_device_list(NULL);
  ctx = ibv_open_device(l[0]);
  pd = ibv_alloc_pd(ctx);
  buf = aligned_alloc(4096, 16384);
  mr = ibv_reg_mr(pd, buf, 16384, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
  struct ibv_device_attr da; ibv_query_device(ctx, &da);
  printf("device_cap_flags=0x%x max_cqe=%d max_qp_wr=%d max_srq_wr=%d num_comp_vectors=%d\n",
         da.device_cap_flags, da.max_cqe, da.max_qp_wr, da.max_srq_wr, ctx->num_comp_vectors);

  /* 1. granted depths */
  struct ibv_cq *big = ibv_create_cq(ctx, 20000, NULL, NULL, 0);
  int asks[] = {1, 3, 4, 7, 8, 100};
  for (int i = 0; i < 6; i++) qp_depths(big, asks[i]);
  for (int i = 0; i < 6; i++) {
    struct ibv_cq *c = ibv_create_cq(ctx, asks[i], NULL, NULL, 0);
    printf("cq asked %d: cqe=%d\n", asks[i], c ? c->cqe : -errno);
    if (c) ibv_destroy_cq(c);
  }
  /* how many completions a CQ of 4 holds before it overruns */
  for (int n = 4; n <= 8; n++) {
    struct ibv_cq *c = ibv_create_cq(ctx, 4, NULL, NULL, 0);
    struct ibv_qp *q = flush_into(c, n);
    struct ibv_wc wc[16]; int got = ibv_poll_cq(c, 16, wc);
    struct ibv_async_event ev; /* not read: overrun shows in the count */
    (void)ev;
    printf("cq of 4 (cqe=%d) after %d flushed receives: polled %d\n", c->cqe, n, got);
    ibv_destroy_qp(q); ibv_destroy_cq(c);
  }
  errno = 0; struct ibv_cq *c0 = ibv_create_cq(ctx, 0, NULL, NULL, 0); printf("cq asked 0: %p errno %d\n", (void *)c0, errno);
  errno = 0; c0 = ibv_create_cq(ctx, da.max_cqe, NULL, NULL, 0); printf("cq asked max_cqe: %s cqe=%d errno %d\n", c0 ? "ok" : "fail", c0 ? c0->cqe : 0, errno);
  if (c0) ibv_destroy_cq(c0);
  errno = 0; c0 = ibv_create_cq(ctx, da.max_cqe + 1, NULL, NULL, 0); printf("cq asked max_cqe+1: %p errno %d\n", (void *)c0, errno);
  errno = 0; c0 = ibv_create_cq(ctx, 4, NULL, NULL, ctx->num_comp_vectors); printf("cq comp_vector=num_comp_vectors: %p errno %d\n", (void *)c0, errno);
  errno = 0; c0 = ibv_create_cq(ctx, 4, NULL, NULL, ctx->num_comp_vectors - 1); printf("cq comp_vector=num_comp_vectors-1: %s errno %d\n", c0 ? "ok" : "fail", errno);
  if (c0) ibv_destroy_cq(c0);
  errno = 0; c0 = ibv_create_cq(ctx, 4, NULL, NULL, -1); printf("cq comp_vector=-1: %p errno %d\n", (void *)c0, errno);

  /* 2. ibv_resize_cq */
  struct ibv_cq *rc = ibv_create_cq(ctx, 4, NULL, NULL, 0);
  int r = ibv_resize_cq(rc, 10); printf("resize 4->10: %d cqe=%d\n", r, rc->cqe);
  r = ibv_resize_cq(rc, 0); printf("resize ->0: %d cqe=%d\n", r, rc->cqe);
  r = ibv_resize_cq(rc, -1); printf("resize ->-1: %d cqe=%d\n", r, rc->cqe);
  r = ibv_resize_cq(rc, da.max_cqe); printf("resize ->max_cqe: %d cqe=%d\n", r, rc->cqe);
  r = ibv_resize_cq(rc, da.max_cqe + 1); printf("resize ->max_cqe+1: %d cqe=%d\n", r, rc->cqe);
  r = ibv_resize_cq(rc, 10); printf("resize ->10: %d cqe=%d\n", r, rc->cqe);
  struct ibv_qp *fq = flush_into(rc, 6);
  r = ibv_resize_cq(rc, 5); printf("resize with 6 held ->5: %d cqe=%d\n", r, rc->cqe);
  r = ibv_resize_cq(rc, 6); printf("resize with 6 held ->6: %d cqe=%d\n", r, rc->cqe);
  r = ibv_resize_cq(rc, 3); printf("resize with 6 held ->3: %d cqe=%d\n", r, rc->cqe);
  r = ibv_resize_cq(rc, 40); printf("resize with 6 held ->40: %d cqe=%d\n", r, rc->cqe);
  { struct ibv_wc wc[16]; int got = ibv_poll_cq(rc, 16, wc); printf("polled after resize: %d, first wr_id %lu status %d\n", got, got > 0 ? (unsigned long)wc[0].wr_id : 0UL, got > 0 ? wc[0].status : -1); }
  ibv_destroy_qp(fq);

  /* 3. SRQ resize */
  struct ibv_srq_init_attr si = {0}; si.attr.max_wr = 4; si.attr.max_sge = 1;
  struct ibv_srq *srq = ibv_create_srq(pd, &si);
  struct ibv_srq_attr sa; ibv_query_srq(srq, &sa);
  int n = 0; while (n < 1000 && !(r = post_srq(srq, n))) n++;
  printf("srq asked 4: create max_wr=%u; query max_wr=%u limit=%u; posts accepted %d (then %d)\n", si.attr.max_wr, sa.max_wr, sa.srq_limit, n, r);
  struct ibv_srq_attr m = {0};
  m.max_wr = 2; r = ibv_modify_srq(srq, &m, IBV_SRQ_MAX_WR); ibv_query_srq(srq, &sa); printf("srq resize holding %d ->2: %d max_wr=%u\n", n, r, sa.max_wr);
  m.max_wr = n; r = ibv_modify_srq(srq, &m, IBV_SRQ_MAX_WR); ibv_query_srq(srq, &sa); printf("srq resize holding %d ->%d: %d max_wr=%u\n", n, n, r, sa.max_wr);
  m.max_wr = 20; r = ibv_modify_srq(srq, &m, IBV_SRQ_MAX_WR); ibv_query_srq(srq, &sa);
  int more = 0; while (more < 1000 && !post_srq(srq, 1000 + more)) more++;
  printf("srq resize holding %d ->20: %d max_wr=%u; then accepted %d more\n", n, r, sa.max_wr, more);
  m.max_wr = da.max_srq_wr + 1; r = ibv_modify_srq(srq, &m, IBV_SRQ_MAX_WR); printf("srq resize ->max_srq_wr+1: %d\n", r);
  m.max_wr = da.max_srq_wr; r = ibv_modify_srq(srq, &m, IBV_SRQ_MAX_WR); ibv_query_srq(srq, &sa); printf("srq resize ->max_srq_wr: %d max_wr=%u\n", r, sa.max_wr);
  m.max_wr = 0; r = ibv_modify_srq(srq, &m, IBV_SRQ_MAX_WR); printf("srq resize ->0: %d\n", r);
  m.max_wr = 100; m.srq_limit = 50; r = ibv_modify_srq(srq, &m, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT); ibv_query_srq(srq, &sa); printf("srq resize 100 + limit 50: %d max_wr=%u limit=%u\n", r, sa.max_wr, sa.srq_limit);
  m.srq_limit = 200; r = ibv_modify_srq(srq, &m, IBV_SRQ_LIMIT); printf("srq limit 200 > max_wr: %d\n", r);
  m.max_wr = 100; m.srq_limit = 120; r = ibv_modify_srq(srq, &m, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT); printf("srq resize 100 + limit 120: %d\n", r);

  /* 4. ibv_rereg_mr */
  char *b2 = aligned_alloc(4096, 8192);
  struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
  struct ibv_mr *rm = ibv_reg_mr(pd, b2, 4096, IBV_ACCESS_LOCAL_WRITE);
  printf("rereg: before lkey=0x%x rkey=0x%x\n", rm->lkey, rm->rkey);
  errno = 0; r = ibv_rereg_mr(rm, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
  printf("rereg ACCESS: %d errno %d lkey=0x%x rkey=0x%x\n", r, errno, rm->lkey, rm->rkey);
  errno = 0; r = ibv_rereg_mr(rm, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
  printf("rereg PD: %d errno %d lkey=0x%x rkey=0x%x pd changed %d\n", r, errno, rm->lkey, rm->rkey, rm->pd == pd2);
  errno = 0; r = ibv_rereg_mr(rm, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, b2 + 4096, 4096, 0);
  printf("rereg TRANSLATION: %d errno %d lkey=0x%x rkey=0x%x addr=%p\n", r, errno, rm->lkey, rm->rkey, rm->addr);
  errno = 0; r = ibv_rereg_mr(rm, 0, NULL, NULL, 0, 0); printf("rereg flags 0: %d errno %d\n", r, errno);
  errno = 0; r = ibv_rereg_mr(rm, 1 << 3, NULL, NULL, 0, 0); printf("rereg flags 8: %d errno %d\n", r, errno);
  errno = 0; r = ibv_rereg_mr(rm, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, IBV_ACCESS_REMOTE_WRITE);
  printf("rereg ACCESS REMOTE_WRITE without LOCAL_WRITE: %d errno %d\n", r, errno);
  errno = 0; r = ibv_rereg_mr(rm, IBV_REREG_MR_CHANGE_ACCESS | IBV_REREG_MR_CHANGE_PD, pd, NULL, 0, IBV_ACCESS_LOCAL_WRITE);
  printf("rereg ACCESS|PD: %d errno %d lkey=0x%x rkey=0x%x\n", r, errno, rm->lkey, rm->rkey);
  errno = 0; r = ibv_rereg_mr(rm, IBV_REREG_MR_CHANGE_PD, NULL, NULL, 0, 0); printf("rereg PD NULL: %d errno %d\n", r, errno);
  return 0;
}
