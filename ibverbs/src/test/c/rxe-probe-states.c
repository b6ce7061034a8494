/* rxe behaviours behind conformance/src/main/resources/org/roce4j/conformance/departures/rxe.txt [1] [4] [10]: RESET->ERR, the real queue depth,
 * ibv_reg_mr_iova page offsets. Build: gcc rxe-probe-states.c -libverbs; run in a VM (../shared/rxe-vm). */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
int main(){
  struct ibv_device **l=ibv_get_device_list(NULL);
  struct ibv_context *ctx=ibv_open_device(l[0]);
  struct ibv_pd *pd=ibv_alloc_pd(ctx);
  struct ibv_cq *cq=ibv_create_cq(ctx,64,NULL,NULL,0);
  struct ibv_qp_init_attr ia={0}; ia.send_cq=cq; ia.recv_cq=cq; ia.qp_type=IBV_QPT_RC;
  ia.cap.max_send_wr=4; ia.cap.max_recv_wr=4; ia.cap.max_send_sge=1; ia.cap.max_recv_sge=1;
  struct ibv_qp *qp=ibv_create_qp(pd,&ia);
  printf("granted send_wr=%u recv_wr=%u send_sge=%u recv_sge=%u inline=%u\n",ia.cap.max_send_wr,ia.cap.max_recv_wr,ia.cap.max_send_sge,ia.cap.max_recv_sge,ia.cap.max_inline_data);
  struct ibv_qp_attr a={0}; a.qp_state=IBV_QPS_ERR;
  int r=ibv_modify_qp(qp,&a,IBV_QP_STATE); printf("RESET->ERR: %d\n",r);
  a.qp_state=IBV_QPS_INIT; a.port_num=1; a.pkey_index=0; a.qp_access_flags=0;
  struct ibv_qp *qp2=ibv_create_qp(pd,&ia);
  r=ibv_modify_qp(qp2,&a,IBV_QP_STATE|IBV_QP_PORT|IBV_QP_PKEY_INDEX|IBV_QP_ACCESS_FLAGS); printf("RESET->INIT: %d\n",r);
  char *buf=aligned_alloc(4096,8192);
  struct ibv_mr *mr=ibv_reg_mr(pd,buf,8192,IBV_ACCESS_LOCAL_WRITE);
  int i; for(i=0;i<100;i++){ struct ibv_sge s={(uintptr_t)buf,64,mr->lkey}; struct ibv_recv_wr w={0},*bad; w.wr_id=i; w.sg_list=&s; w.num_sge=1; r=ibv_post_recv(qp2,&w,&bad); if(r){printf("post_recv #%d failed %d\n",i,r);break;} }
  struct ibv_mr *m2=ibv_reg_mr_iova(pd,buf,8192,0x100000,IBV_ACCESS_LOCAL_WRITE); printf("reg_mr_iova page-aligned iova: %p errno %d\n",(void*)m2,errno);
  errno=0; struct ibv_mr *m3=ibv_reg_mr_iova(pd,buf,8192,0x100010,IBV_ACCESS_LOCAL_WRITE); printf("reg_mr_iova iova offset 0x10: %p errno %d\n",(void*)m3,errno);
  errno=0; struct ibv_mr *m4=ibv_reg_mr_iova(pd,buf+16,4096,0x100010,IBV_ACCESS_LOCAL_WRITE); printf("reg_mr_iova same offset: %p errno %d\n",(void*)m4,errno);
  return 0;
}
