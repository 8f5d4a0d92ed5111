/** Plain RTMP: the container listens on it, and so does the load balancer unless RTMPS only. */
export const RTMP_PORT = 1935;
/** RTMPS: the load balancer's TLS listener, which hands the tasks plain RTMP on `RTMP_PORT`. */
export const RTMPS_PORT = 443;
/** SRT (UDP): the load balancer's UDP listener and the container's SRT port alike. */
export const SRT_PORT = 9000;
