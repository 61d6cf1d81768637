/**
 * Both live peers held to one contract (peer-contract.ts), each against a real SDK server in this process: the
 * stdio peer through a child whose pipes are streams, the HTTP peer through a fetch the SDK's web-standard
 * Streamable HTTP transport answers. No process, no port.
 */
import { HttpLivePeer } from '../../src/live/http-peer.js';
import { LiveServer } from '../../src/live/stdio-peer.js';
import { inProcessHttp, inProcessStdio } from './in-process-servers.js';
import { peerContract } from './peer-contract.js';

peerContract('the stdio peer (LiveServer)', (hooks) => LiveServer.start({ ...inProcessStdio(), ...hooks }));

peerContract('the HTTP peer (HttpLivePeer)', (hooks) => HttpLivePeer.start(inProcessHttp(), hooks));
