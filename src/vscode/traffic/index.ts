import * as vscode from 'vscode';
import { trafficCapacitySetting, type HostController } from '../hostController';
import type { ServerConnection } from '../../host/serverConnection';
import type { TreeNode } from '../serverTree';
import { Commands, InternalCommands } from '../commandIds';
import { TrafficView, type TrafficViewHandle } from './trafficView';

/** "MCP Host: Show Traffic": from the palette (every server) or a server's context menu (that one). */
export function registerTrafficView(controller: HostController): vscode.Disposable[] {
  const view = new TrafficView(controller.registry, trafficCapacitySetting);
  return [
    view,
    vscode.commands.registerCommand(Commands.showTraffic, (arg?: unknown) => view.show(serverOf(controller, arg))),
    vscode.commands.registerCommand(InternalCommands.trafficTestHook, (): TrafficViewHandle => view),
  ];
}

function serverOf(controller: HostController, arg: unknown): ServerConnection | undefined {
  if (arg && typeof arg === 'object' && 'server' in arg) return (arg as TreeNode).server;
  if (typeof arg === 'string') return controller.registry.findByName(arg) ?? controller.registry.get(arg);
  return undefined;
}
