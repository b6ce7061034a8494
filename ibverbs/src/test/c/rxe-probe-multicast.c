/* rxe behaviours behind ibv_attach_mcast / ibv_detach_mcast and UD multicast delivery (issue 16).
 * Build: gcc rxe-probe-multicast.c -libverbs; run in a VM (../shared/rxe-vm), e.g. RXE_VM_KERNEL=6.12.
 * Prints what it sees; the emulator's model and the conformance MulticastTest follow it.
 * Seen with rdma-core 44 on kernels 6.1 and 6.12 (identical output):
 *  - max_mcast_grp 8192, max_mcast_qp_attach 56, max_total_mcast_qp_attach 458752;
 *  - attach of an RC QP and of a unicast GID: EINVAL (22); ff00:: is multicast (0); detaching what is not
 *    attached: EINVAL; attaching again: 0; a second LID is accepted, and detaching it takes the QP out of the
 *    group (it receives nothing more; its first LID's detach is then EINVAL); the 57th QP of a group: ENOMEM;
 *    ibv_destroy_qp of an attached QP: EBUSY (16);
 *  - a SEND to DestQP 0xFFFFFF and ::ffff:239.1.2.3 from a QP of the same rxe0 reaches NO attached QP until
 *    the host joins the IP group (IP_ADD_MEMBERSHIP on eth0): ibv_attach_mcast adds only a MAC filter, and
 *    the IP stack loops a multicast datagram back only to a member host. With the join, each attached QP
 *    with the Q_Key receives it once (byte_len 40 + payload, IBV_WC_GRH, src_qp the sender's), the GRH's
 *    IPv4 header has the group as destination and a computed checksum; a QP with another Q_Key gets nothing;
 *    the same for IPv6 ff0e::1:2:3 from GID 0 after IPV6_ADD_MEMBERSHIP. */
#include <infiniband/verbs.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#define QKEY 0x11111111
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static char *buf;

static struct ibv_qp *ud_qp(struct ibv_cq *cq, int qkey) {
  struct ibv_qp_init_attr ia = {0};
  ia.send_cq = cq; ia.recv_cq = cq; ia.qp_type = IBV_QPT_UD;
  ia.cap.max_send_wr = 8; ia.cap.max_recv_wr = 8; ia.cap.max_send_sge = 1; ia.cap.max_recv_sge = 1;
  struct ibv_qp *qp = ibv_create_qp(pd, &ia);
  if (!qp) { perror("create ud qp"); exit(1); }
  struct ibv_qp_attr a = {0};
  a.qp_state = IBV_QPS_INIT; a.pkey_index = 0; a.port_num = 1; a.qkey = qkey;
  if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)) perror("init");
  memset(&a, 0, sizeof a); a.qp_state = IBV_QPS_RTR;
  if (ibv_modify_qp(qp, &a, IBV_QP_STATE)) perror("rtr");
  memset(&a, 0, sizeof a); a.qp_state = IBV_QPS_RTS; a.sq_psn = 0;
  if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN)) perror("rts");
  return qp;
}

static void post_recv(struct ibv_qp *qp, int slot) {
  struct ibv_sge s = {(uintptr_t)(buf + 4096 * slot), 4096, mr->lkey};
  struct ibv_recv_wr w = {0}, *bad;
  w.wr_id = slot; w.sg_list = &s; w.num_sge = 1;
  if (ibv_post_recv(qp, &w, &bad)) perror("post_recv");
}

static void send_to(struct ibv_qp *qp, struct ibv_ah *ah, int qkey, int id) {
  struct ibv_sge s = {(uintptr_t)(buf + 4096 * 31), 32, mr->lkey};
  snprintf(buf + 4096 * 31, 32, "hello %d", id);
  struct ibv_send_wr w = {0}, *bad;
  w.wr_id = id; w.sg_list = &s; w.num_sge = 1; w.opcode = IBV_WR_SEND; w.send_flags = IBV_SEND_SIGNALED;
  w.wr.ud.ah = ah; w.wr.ud.remote_qpn = 0xFFFFFF; w.wr.ud.remote_qkey = qkey;
  if (ibv_post_send(qp, &w, &bad)) perror("post_send");
}

static void drain(struct ibv_cq *cq, const char *what) {
  usleep(300000);
  struct ibv_wc wc[16];
  int n = ibv_poll_cq(cq, 16, wc);
  printf("%s: %d completions\n", what, n);
  for (int i = 0; i < n; i++) {
    char dgid[64] = "";
    if (wc[i].opcode == IBV_WC_RECV) {
      char *grh = buf + 4096 * wc[i].wr_id;
      inet_ntop(AF_INET6, grh + 24, dgid, sizeof dgid);
    }
    printf("  wr_id %lu status %d opcode %d qp %u src_qp %u byte_len %u flags %d dgid %s\n",
           (unsigned long) wc[i].wr_id, wc[i].status, wc[i].opcode, wc[i].qp_num, wc[i].src_qp,
           wc[i].byte_len, wc[i].wc_flags, dgid);
  }
}

static union ibv_gid gid_of(const char *text) {
  union ibv_gid g; inet_pton(AF_INET6, text, g.raw); return g;
}

static void round_trip(const char *title, struct ibv_qp *sender, struct ibv_cq *scq, struct ibv_cq **rcq,
                       struct ibv_qp **rq, int n, const char *group, int sgid, int qkey) {
  printf("== %s: to %s from GID %d Q_Key %#x\n", title, group, sgid, qkey);
  struct ibv_ah_attr aa = {0};
  aa.is_global = 1; aa.port_num = 1; aa.grh.dgid = gid_of(group); aa.grh.sgid_index = sgid; aa.grh.hop_limit = 64;
  struct ibv_ah *ah = ibv_create_ah(pd, &aa);
  if (!ah) { printf("create_ah: errno %d\n", errno); return; }
  for (int i = 0; i < n; i++) post_recv(rq[i], i + 1 + 8 * i);
  send_to(sender, ah, qkey, 7);
  drain(scq, "sender");
  for (int i = 0; i < n; i++) { char w[32]; snprintf(w, sizeof w, "receiver %d (qp %u)", i, rq[i]->qp_num); drain(rcq[i], w); }
  ibv_destroy_ah(ah);
}

int main(void) {
  struct ibv_device **list = ibv_get_device_list(NULL);
  ctx = ibv_open_device(list[0]);
  pd = ibv_alloc_pd(ctx);
  buf = aligned_alloc(4096, 4096 * 32);
  memset(buf, 0, 4096 * 32);
  mr = ibv_reg_mr(pd, buf, 4096 * 32, IBV_ACCESS_LOCAL_WRITE);
  struct ibv_device_attr da; ibv_query_device(ctx, &da);
  printf("max_mcast_grp %d max_mcast_qp_attach %d max_total_mcast_qp_attach %d\n",
         da.max_mcast_grp, da.max_mcast_qp_attach, da.max_total_mcast_qp_attach);
  struct ibv_cq *cq[4];
  for (int i = 0; i < 4; i++) cq[i] = ibv_create_cq(ctx, 16, NULL, NULL, 0);
  struct ibv_qp *sender = ud_qp(cq[0], QKEY), *r1 = ud_qp(cq[1], QKEY), *r2 = ud_qp(cq[2], QKEY);
  struct ibv_qp *r3 = ud_qp(cq[3], 0x22222222);
  union ibv_gid g4 = gid_of("::ffff:239.1.2.3"), g6 = gid_of("ff0e::1:2:3"), uni = gid_of("::ffff:192.168.77.2");
  struct ibv_qp_init_attr ia = {0};
  ia.send_cq = cq[0]; ia.recv_cq = cq[0]; ia.qp_type = IBV_QPT_RC; ia.cap.max_send_wr = 1; ia.cap.max_recv_wr = 1;
  ia.cap.max_send_sge = 1; ia.cap.max_recv_sge = 1;
  struct ibv_qp *rc = ibv_create_qp(pd, &ia);
  printf("attach RC: %d\n", ibv_attach_mcast(rc, &g4, 0));
  printf("attach unicast GID: %d\n", ibv_attach_mcast(r1, &uni, 0));
  printf("attach ff00::: %d\n", ibv_attach_mcast(r1, &(union ibv_gid){.raw = {0xff}}, 0));
  printf("detach not attached: %d\n", ibv_detach_mcast(r1, &g4, 0));
  printf("attach r1: %d\n", ibv_attach_mcast(r1, &g4, 0));
  printf("attach r1 again: %d\n", ibv_attach_mcast(r1, &g4, 0));
  printf("attach r1 again other lid: %d\n", ibv_attach_mcast(r1, &g4, 0xC001));
  printf("detach r1 other lid: %d\n", ibv_detach_mcast(r1, &g4, 0xC001));
  printf("detach r1 other lid again: %d\n", ibv_detach_mcast(r1, &g4, 0xC001));
  printf("attach r2: %d\n", ibv_attach_mcast(r2, &g4, 0));
  printf("attach r3 (other qkey): %d\n", ibv_attach_mcast(r3, &g4, 0));
  struct ibv_cq *rcq[3] = {cq[1], cq[2], cq[3]};
  struct ibv_qp *rqs[3] = {r1, r2, r3};
  round_trip("ipv4 no ip join", sender, cq[0], rcq, rqs, 3, "::ffff:239.1.2.3", 1, QKEY);
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  struct ip_mreqn m = {0};
  inet_pton(AF_INET, "239.1.2.3", &m.imr_multiaddr); m.imr_ifindex = if_nametoindex("eth0");
  printf("IP_ADD_MEMBERSHIP: %d\n", setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof m));
  round_trip("ipv4 with ip join", sender, cq[0], rcq, rqs, 3, "::ffff:239.1.2.3", 1, QKEY);
  round_trip("ipv4 with ip join, wrong qkey", sender, cq[0], rcq, rqs, 3, "::ffff:239.1.2.3", 1, 0x33333333);
  printf("attach sender: %d\n", ibv_attach_mcast(sender, &g4, 0));
  round_trip("ipv4, sender attached", sender, cq[0], rcq, rqs, 3, "::ffff:239.1.2.3", 1, QKEY);
  printf("detach r1: %d\n", ibv_detach_mcast(r1, &g4, 0));
  printf("detach r1 again: %d\n", ibv_detach_mcast(r1, &g4, 0));
  round_trip("ipv4, r1 detached", sender, cq[0], rcq, rqs, 3, "::ffff:239.1.2.3", 1, QKEY);
  printf("attach r1 v6: %d\n", ibv_attach_mcast(r1, &g6, 0));
  round_trip("ipv6 no ip join", sender, cq[0], rcq, rqs, 1, "ff0e::1:2:3", 0, QKEY);
  int s6 = socket(AF_INET6, SOCK_DGRAM, 0);
  struct ipv6_mreq m6 = {0};
  inet_pton(AF_INET6, "ff0e::1:2:3", &m6.ipv6mr_multiaddr); m6.ipv6mr_interface = if_nametoindex("eth0");
  printf("IPV6_ADD_MEMBERSHIP: %d\n", setsockopt(s6, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, &m6, sizeof m6));
  round_trip("ipv6 with ip join", sender, cq[0], rcq, rqs, 1, "ff0e::1:2:3", 0, QKEY);
  /* limits: max_mcast_qp_attach QPs on one group */
  struct ibv_cq *lcq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
  union ibv_gid g9 = gid_of("::ffff:239.9.9.9");
  int i, err = 0;
  for (i = 0; i < da.max_mcast_qp_attach + 2; i++) {
    struct ibv_qp *q = ud_qp(lcq, QKEY);
    err = ibv_attach_mcast(q, &g9, 0);
    if (err) break;
  }
  printf("attach number %d to one group: %d\n", i + 1, err);
  /* destroy an attached QP: the group goes; detach of a destroyed... n/a */
  printf("destroy attached r2: %d\n", ibv_destroy_qp(r2));
  return 0;
}
