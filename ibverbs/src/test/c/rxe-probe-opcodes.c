/* rxe behaviours behind conformance/src/main/resources/org/roce4j/conformance/departures/rxe.txt [3] [12]. Build: gcc rxe-probe-opcodes.c -libverbs;
 * run in a VM (../shared/rxe-vm). */
/* What rxe0 does with (1) a UD send whose Q_Key has bit 31 set, (2) RDMA_READ posted on a UC QP. */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static struct ibv_context *ctx; static struct ibv_pd *pd; static struct ibv_cq *cq;
static void drain(const char *what){ struct ibv_wc wc[8]; for(int t=0;t<300;t++){ int n=ibv_poll_cq(cq,8,wc); for(int i=0;i<n;i++) printf("%s: wc wr_id=%llu status=%d (%s) opcode=%d\n",what,(unsigned long long)wc[i].wr_id,wc[i].status,ibv_wc_status_str(wc[i].status),wc[i].opcode); usleep(10000);} }
static struct ibv_qp *mk(enum ibv_qp_type t){ struct ibv_qp_init_attr ia={0}; ia.send_cq=cq; ia.recv_cq=cq; ia.qp_type=t; ia.cap.max_send_wr=8; ia.cap.max_recv_wr=8; ia.cap.max_send_sge=1; ia.cap.max_recv_sge=1; return ibv_create_qp(pd,&ia);}
int main(){
  struct ibv_device **l=ibv_get_device_list(NULL); ctx=ibv_open_device(l[0]); pd=ibv_alloc_pd(ctx); cq=ibv_create_cq(ctx,64,NULL,NULL,0);
  char *buf=aligned_alloc(4096,8192); memset(buf,0,8192);
  struct ibv_mr *mr=ibv_reg_mr(pd,buf,8192,IBV_ACCESS_LOCAL_WRITE|IBV_ACCESS_REMOTE_WRITE|IBV_ACCESS_REMOTE_READ);
  union ibv_gid gid; ibv_query_gid(ctx,1,1,&gid);
  /* (1) UD */
  struct ibv_qp *a=mk(IBV_QPT_UD), *b=mk(IBV_QPT_UD);
  for (int k=0;k<2;k++){ struct ibv_qp *q=k?b:a; struct ibv_qp_attr x={0}; x.qp_state=IBV_QPS_INIT; x.port_num=1; x.qkey=0x11111111;
    printf("ud init %d\n", ibv_modify_qp(q,&x,IBV_QP_STATE|IBV_QP_PKEY_INDEX|IBV_QP_PORT|IBV_QP_QKEY));
    x.qp_state=IBV_QPS_RTR; printf("ud rtr %d\n", ibv_modify_qp(q,&x,IBV_QP_STATE)); x.qp_state=IBV_QPS_RTS; x.sq_psn=1; printf("ud rts %d\n", ibv_modify_qp(q,&x,IBV_QP_STATE|IBV_QP_SQ_PSN)); }
  struct ibv_ah_attr aa={0}; aa.is_global=1; aa.grh.dgid=gid; aa.grh.sgid_index=1; aa.grh.hop_limit=64; aa.port_num=1;
  struct ibv_ah *ah=ibv_create_ah(pd,&aa); printf("ah %p\n",(void*)ah);
  struct ibv_sge rs={(uintptr_t)buf,128,mr->lkey}; struct ibv_recv_wr rw={0},*br; rw.wr_id=1; rw.sg_list=&rs; rw.num_sge=1; ibv_post_recv(b,&rw,&br);
  struct ibv_sge ss={(uintptr_t)buf+4096,16,mr->lkey}; struct ibv_send_wr sw={0},*bs; sw.wr_id=2; sw.sg_list=&ss; sw.num_sge=1; sw.opcode=IBV_WR_SEND; sw.send_flags=IBV_SEND_SIGNALED;
  sw.wr.ud.ah=ah; sw.wr.ud.remote_qpn=b->qp_num; sw.wr.ud.remote_qkey=0x80000000;
  printf("ud post (qkey 0x80000000) %d\n", ibv_post_send(a,&sw,&bs)); drain("ud controlled qkey");
  sw.wr_id=3; sw.wr.ud.remote_qkey=0x11111111; printf("ud post (qkey 0x11111111) %d\n", ibv_post_send(a,&sw,&bs)); drain("ud plain qkey");
  /* (2) UC RDMA_READ */
  struct ibv_qp *c=mk(IBV_QPT_UC), *d=mk(IBV_QPT_UC);
  for (int k=0;k<2;k++){ struct ibv_qp *q=k?d:c, *p=k?c:d; struct ibv_qp_attr x={0}; x.qp_state=IBV_QPS_INIT; x.port_num=1; x.qp_access_flags=IBV_ACCESS_REMOTE_WRITE;
    ibv_modify_qp(q,&x,IBV_QP_STATE|IBV_QP_PKEY_INDEX|IBV_QP_PORT|IBV_QP_ACCESS_FLAGS);
    memset(&x,0,sizeof x); x.qp_state=IBV_QPS_RTR; x.path_mtu=IBV_MTU_1024; x.dest_qp_num=p->qp_num; x.rq_psn=5; x.ah_attr=aa;
    printf("uc rtr %d\n", ibv_modify_qp(q,&x,IBV_QP_STATE|IBV_QP_AV|IBV_QP_PATH_MTU|IBV_QP_DEST_QPN|IBV_QP_RQ_PSN));
    memset(&x,0,sizeof x); x.qp_state=IBV_QPS_RTS; x.sq_psn=5; printf("uc rts %d\n", ibv_modify_qp(q,&x,IBV_QP_STATE|IBV_QP_SQ_PSN)); }
  struct ibv_send_wr rd={0}; rd.wr_id=4; rd.sg_list=&ss; rd.num_sge=1; rd.opcode=IBV_WR_RDMA_READ; rd.send_flags=IBV_SEND_SIGNALED; rd.wr.rdma.remote_addr=(uintptr_t)buf; rd.wr.rdma.rkey=mr->rkey;
  printf("uc RDMA_READ post %d\n", ibv_post_send(c,&rd,&bs)); drain("uc read");
  struct ibv_qp_attr qa; struct ibv_qp_init_attr qi; ibv_query_qp(c,&qa,IBV_QP_STATE,&qi); printf("uc qp state after: %d\n",qa.qp_state);
  return 0;
}
