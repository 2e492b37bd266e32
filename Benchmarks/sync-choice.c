/* The measurement of Spec/decisions/0043: writes N files of 5 MiB in 4 MiB pwrites into DIR and syncs them
   one way, printing the wall time.
     cc -O2 -o sync-choice Benchmarks/sync-choice.c && ./sync-choice DIR fsync|early|delayed|syncfs [N]
   fsync: fsync each file; early: sync_file_range(WRITE) after each piece, fsync each; delayed: early, the
   fsync 16 files behind; syncfs: early, no fsync, one syncfs. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
// syncbench DIR MODE: writes 300 files of 5 MiB in 4 MiB writes into DIR.
// MODE: fsync (fsync each), early (sync_file_range WRITE after each write, fsync each), syncfs (early writeback, no fsync, one syncfs)
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
int main(int c,char**v){
  const char*dir=v[1];const char*mode=v[2];int n=c>3?atoi(v[3]):300;
  size_t sz=5<<20; char*buf=malloc(4<<20); for(size_t i=0;i<(4u<<20);i++)buf[i]=rand();
  mkdir(dir,0700); int dfd=open(dir,O_RDONLY|O_DIRECTORY);
  double t0=now();
  for(int i=0;i<n;i++){char name[64];snprintf(name,64,"IMG_%04d.jpg",i);
    int fd=openat(dfd,name,O_WRONLY|O_CREAT|O_EXCL,0600); size_t off=0;
    while(off<sz){size_t k=sz-off<(4u<<20)?sz-off:(4u<<20); if(pwrite(fd,buf,k,off)!=(ssize_t)k){perror("w");return 1;}
      if(strcmp(mode,"fsync"))sync_file_range(fd,off,k,SYNC_FILE_RANGE_WRITE); off+=k;}
    if(!strcmp(mode,"delayed")){static int q[64];static int h=0,t=0; q[t++%64]=fd; if(t-h>16){fsync(q[h%64]);close(q[h%64]);h++;} if(i==n-1)while(h<t){fsync(q[h%64]);close(q[h%64]);h++;} continue;}
    if(strcmp(mode,"syncfs"))fsync(fd); close(fd);}
  if(!strcmp(mode,"syncfs"))syncfs(dfd);
  fsync(dfd);
  printf("%s %.3f s\n",mode,now()-t0);return 0;}
